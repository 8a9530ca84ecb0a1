package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMemorySpoolSpillsPastItsLimit runs a run's batches through a
// memory spool of 64 KiB (controller.memory_limit_mb, made small): it
// never holds more, spills the rest to its file, once, and
// samples.parquet holds the same rows, in the same order, as from a spool
// on disk.
func TestMemorySpoolSpillsPastItsLimit(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	diskDir, memDir := t.TempDir(), t.TempDir()
	disk, err := CreateSpool(filepath.Join(diskDir, Spool))
	if err != nil {
		t.Fatal(err)
	}
	recs := feedRun(t, disk, true)
	if err := disk.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteSamplesKeys(diskDir, recs, disk.ExtraKeys()); err != nil {
		t.Fatal(err)
	}
	spills := 0
	mem := NewMemorySpool(limit, filepath.Join(memDir, Spool), func() { spills++ })
	recs2 := feedRun(t, mem, true)
	if held := mem.MemoryBytes(); held > limit || held < limit/2 {
		t.Errorf("the memory spool holds %d bytes; its limit is %d", held, limit)
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(memDir, Spool)); err != nil || st.Size() == 0 || spills != 1 {
		t.Fatalf("spilled %d times to %v (%v)", spills, st, err)
	}
	if _, err := WriteSamplesSpool(memDir, recs2, mem); err != nil {
		t.Fatal(err)
	}
	a, _ := readRows(t, diskDir)
	b, _ := readRows(t, memDir)
	if len(a) != len(b) || len(a) < 10_000 {
		t.Fatalf("disk %d rows, memory and spill %d", len(a), len(b))
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			t.Fatalf("row %d differs:\ndisk   %+v\nmemory %+v", i, a[i], b[i])
		}
	}
}
