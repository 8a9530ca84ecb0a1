package rundir

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// spoolSink is what both controller modes write a run's frames to.
type spoolSink interface {
	Samples(slot int, payload []byte, samples []sample.Sample) error
	Sync(slot int, r clock.Record) error
	Tester(rec TesterRecord) error
}

// feedRun writes one synthetic run into w: testers interleaved batch by
// batch, with clock syncs among them, every kind of column filled
// (errors, open-model intended starts, phases, clients, extras), and the
// testers' records; it returns the records as the controller would.
func feedRun(t *testing.T, w spoolSink, extras bool) []*TesterRecord {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 2))
	const testers, batches = 7, 40
	recs := make([]*TesterRecord, testers)
	seq := make([]uint64, testers)
	local := make([]int64, testers)
	statuses := []sample.Status{sample.OK, sample.Failed, sample.Timeout}
	for i := range recs {
		recs[i] = &TesterRecord{Slot: i, ID: "host-" + string(rune('a'+i)) + ":1", Host: "h", PID: i + 1}
		local[i] = 1_000_000_000 * int64(i+1)
		if err := w.Tester(*recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for b := range batches * testers {
		slot := rng.IntN(testers)
		if b%9 == 0 {
			r := clock.Record{LocalNs: local[slot], OffsetNs: rng.Int64N(2_000_000) - 1_000_000, RTTNs: 40_000, BoundNs: 20_000}
			recs[slot].Syncs = append(recs[slot].Syncs, r)
			if err := w.Sync(slot, r); err != nil {
				t.Fatal(err)
			}
		}
		samples := make([]sample.Sample, 1+rng.IntN(300))
		for k := range samples {
			seq[slot]++
			local[slot] += 1000 + rng.Int64N(100_000)
			s := sample.Sample{Seq: seq[slot], Client: uint32(rng.IntN(4)), Start: local[slot],
				End: local[slot] + rng.Int64N(5_000_000), Status: statuses[rng.IntN(len(statuses))], Bytes: rng.Int64N(1 << 20)}
			if s.Status != sample.OK {
				s.Err = "boom " + string(rune('0'+rng.IntN(3)))
			}
			if rng.IntN(2) == 0 {
				s.Intended = s.Start - rng.Int64N(10_000)
				s.Phases = sample.Phases{DNS: 1, Connect: rng.Int64N(1000), TLS: 3, FirstByte: rng.Int64N(9000)}
			}
			if extras && rng.IntN(3) == 0 {
				s.Extras = []sample.Extra{{Key: "mb", Value: rng.Float64()}}
				if rng.IntN(2) == 0 {
					s.Extras = append(s.Extras, sample.Extra{Key: "files", Value: float64(rng.IntN(10))})
				}
			}
			samples[k] = s
		}
		recs[slot].Received += uint64(len(samples))
		b := &protocol.Batch{Produced: seq[slot], Samples: samples}
		if err := w.Samples(slot, protocol.AppendBatch(nil, b), samples); err != nil {
			t.Fatal(err)
		}
	}
	return recs
}

// readRows reads every row of dir's samples.parquet, every column (the
// extras too), and its schema.
func readRows(t *testing.T, dir string) ([]parquet.Row, string) {
	t.Helper()
	pf, f, err := openParquet(filepath.Join(dir, Samples))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := parquet.NewReader(pf)
	defer r.Close()
	var rows []parquet.Row
	buf := make([]parquet.Row, 1000)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			rows = append(rows, row.Clone())
		}
		if errors.Is(err, io.EOF) {
			return rows, pf.Schema().String()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestModesWriteIdenticalSamples runs the same batches through both
// controller modes, the spool on disk (controller.mode: disk) and in
// memory (controller.mode: memory): samples.parquet holds the same rows,
// in the same order, in both; with extras columns and without.
func TestModesWriteIdenticalSamples(t *testing.T) {
	t.Parallel()
	for _, extras := range []bool{false, true} {
		diskDir, memDir := t.TempDir(), t.TempDir()
		disk, err := CreateSpool(filepath.Join(diskDir, Spool))
		if err != nil {
			t.Fatal(err)
		}
		recs := feedRun(t, disk, extras)
		if err := disk.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := WriteSamplesKeys(diskDir, recs, disk.ExtraKeys()); err != nil {
			t.Fatal(err)
		}
		mem := NewMemorySpool(1<<40, filepath.Join(memDir, Spool), nil)
		recs2 := feedRun(t, mem, extras)
		if _, err := mem.MemoryReader(); err == nil {
			t.Fatal("a memory spool read before Close: no error")
		}
		if err := mem.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := WriteSamplesSpool(memDir, recs2, mem); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(memDir, Spool)); err == nil {
			t.Error("memory mode wrote a spool file")
		}
		a, schemaA := readRows(t, diskDir)
		b, schemaB := readRows(t, memDir)
		if schemaA != schemaB || strings.Contains(schemaA, ExtraPrefix) != extras {
			t.Fatalf("extras %v: schemas differ or lack the extras:\ndisk %s\nmemory %s", extras, schemaA, schemaB)
		}
		if len(a) < 10_000 {
			t.Fatalf("extras %v: only %d rows", extras, len(a))
		}
		if len(a) != len(b) {
			t.Fatalf("extras %v: disk %d rows, memory %d", extras, len(a), len(b))
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				t.Fatalf("extras %v: row %d differs:\ndisk   %+v\nmemory %+v", extras, i, a[i], b[i])
			}
		}
		if extras != (len(disk.ExtraKeys()) > 0) || !reflect.DeepEqual(disk.ExtraKeys(), mem.ExtraKeys()) {
			t.Errorf("extras %v: keys %v (disk), %v (memory)", extras, disk.ExtraKeys(), mem.ExtraKeys())
		}
	}
}
