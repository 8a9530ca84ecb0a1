package rundir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// spoolContent is what a replay of a spool gave.
type spoolContent struct {
	batches map[int][]uint64 // seqs by slot
	syncs   map[int][]clock.Record
	testers []TesterRecord
}

func readSpoolContent(t *testing.T, path string) spoolContent {
	t.Helper()
	c := spoolContent{batches: map[int][]uint64{}, syncs: map[int][]clock.Record{}}
	err := ReadSpool(path, SpoolVisitor{
		Batch: func(slot int, b *protocol.Batch) error {
			for _, s := range b.Samples {
				c.batches[slot] = append(c.batches[slot], s.Seq)
			}
			return nil
		},
		Sync:   func(slot int, r clock.Record) error { c.syncs[slot] = append(c.syncs[slot], r); return nil },
		Tester: func(r TesterRecord) error { c.testers = append(c.testers, r); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func batchOf(seqs ...uint64) []byte {
	b := &protocol.Batch{Produced: seqs[len(seqs)-1]}
	for _, s := range seqs {
		b.Samples = append(b.Samples, sample.Sample{Seq: s, Start: int64(s) * 1000, End: int64(s)*1000 + 500, Status: sample.OK})
	}
	return protocol.AppendBatch(nil, b)
}

// TestSpoolKeepsWhatReturnedWithoutClose is a controller killed with
// SIGKILL: the writer is abandoned without Close, and the file holds every
// frame whose call returned, each one as soon as the call returned.
func TestSpoolKeepsWhatReturnedWithoutClose(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), Spool)
	sp, err := CreateSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Close() }) // after the test: the body never closes it (the "kill")
	rec := TesterRecord{Slot: 1, ID: "h:7", Host: "h", PID: 7, LaunchNs: 10, StartNs: 20, PlannedNs: 15, Sent: 3,
		InjectedOff: -5, InjectedDrift: 2.5, TargetRTTNs: 99, Received: 42, Syncs: []clock.Record{{LocalNs: 1}}}
	calls := []func() error{
		func() error { return sp.Tester(rec) },
		func() error { return sp.Sync(1, clock.Record{LocalNs: 1, OffsetNs: 2, RTTNs: 3, BoundNs: 4}) },
		func() error { return sp.Batch(1, batchOf(1, 2)) },
		func() error { return sp.Batch(0, batchOf(1)) },
		func() error { return sp.Batch(1, batchOf(3)) },
	}
	var size int64
	for i, call := range calls {
		if err := call(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() <= size {
			t.Fatalf("call %d returned but the file did not grow (%d bytes): its frame is held in memory", i, st.Size())
		}
		size = st.Size()
	}
	c := readSpoolContent(t, path)
	if !reflect.DeepEqual(c.batches, map[int][]uint64{1: {1, 2, 3}, 0: {1}}) {
		t.Errorf("batches %v", c.batches)
	}
	if len(c.syncs[1]) != 1 || c.syncs[1][0] != (clock.Record{LocalNs: 1, OffsetNs: 2, RTTNs: 3, BoundNs: 4}) {
		t.Errorf("syncs %v", c.syncs)
	}
	want := rec
	want.Received, want.Syncs = 0, nil // not in a tester record: the batches and syncs give them
	if len(c.testers) != 1 || !reflect.DeepEqual(c.testers[0], want) {
		t.Errorf("tester records %+v, want %+v", c.testers, want)
	}
}

// TestSpoolIsLockedWhileWritten: a recovery cannot take a live spool.
func TestSpoolIsLockedWhileWritten(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), Spool)
	sp, err := CreateSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := LockSpool(path); !errors.Is(err, ErrSpoolInUse) {
		t.Errorf("LockSpool of a live spool: %v", err)
		if f != nil {
			f.Close()
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := LockSpool(path)
	if err != nil {
		t.Fatalf("LockSpool of a closed spool: %v", err)
	}
	f.Close()
}

// validSpool returns the bytes of a spool with every kind of frame.
func validSpool(t testing.TB) []byte {
	path := filepath.Join(t.TempDir(), Spool)
	sp, err := CreateSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	_ = sp.Tester(TesterRecord{Slot: 0, ID: "h:1", LaunchNs: 5})
	_ = sp.Sync(0, clock.Record{LocalNs: 1000, OffsetNs: 100})
	_ = sp.Batch(0, batchOf(1, 2, 3))
	_ = sp.Tester(TesterRecord{Slot: 0, ID: "h:1", LaunchNs: 5, StopNs: 9})
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSpoolEveryPrefixReads: a crash at any byte leaves a spool that
// replays without error, frame by frame.
func TestSpoolEveryPrefixReads(t *testing.T) {
	t.Parallel()
	b := validSpool(t)
	frames := 0
	for n := 0; n <= len(b); n++ {
		got := 0
		err := ReadSpoolFrom(bytes.NewReader(b[:n]), SpoolVisitor{
			Batch:  func(int, *protocol.Batch) error { got++; return nil },
			Sync:   func(int, clock.Record) error { got++; return nil },
			Tester: func(TesterRecord) error { got++; return nil },
		})
		if err != nil {
			t.Fatalf("prefix of %d bytes: %v", n, err)
		}
		if got < frames {
			t.Fatalf("prefix of %d bytes gave %d frames, a shorter one %d", n, got, frames)
		}
		frames = got
	}
	if frames != 4 {
		t.Errorf("the whole spool gave %d frames, want 4", frames)
	}
}

// TestSpoolLyingLengthCostsNoMemory: a header announcing a megabyte
// followed by a few bytes allocates for the few bytes only.
func TestSpoolLyingLengthCostsNoMemory(t *testing.T) {
	data := []byte{0, 0x10, 0, 0, byte(protocol.TypeSamples), 1, 2, 3}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 10 {
		if err := ReadSpoolFrom(bytes.NewReader(data), SpoolVisitor{}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 10*(200<<10) {
		t.Errorf("10 reads of a lying 8-byte spool allocated %d bytes", d)
	}
}

// TestSpoolRejectsGarbage: a frame that is whole but malformed is an
// error naming its offset, not a silent end.
func TestSpoolRejectsGarbage(t *testing.T) {
	t.Parallel()
	b := validSpool(t)
	bad := append(append([]byte{}, b...), 0, 0, 0, 1, 0xEE, 0)
	if err := ReadSpoolFrom(bytes.NewReader(bad), SpoolVisitor{}); err == nil {
		t.Errorf("a frame of unknown type was accepted")
	}
	bad = append(append([]byte{}, b...), 0, 0, 0, 2, byte(protocol.TypeSyncRecord), 0, '{')
	if err := ReadSpoolFrom(bytes.NewReader(bad), SpoolVisitor{}); err == nil {
		t.Errorf("a broken sync record was accepted")
	}
}

// FuzzReadSpool: any bytes replay without a panic and without memory
// beyond the bytes given; any prefix of a valid spool replays without
// error.
func FuzzReadSpool(f *testing.F) {
	valid := validSpool(f)
	f.Add(valid)
	f.Add(valid[:len(valid)-3])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 9})
	f.Add([]byte{0, 0, 0, 3, byte(SpoolTesterType), 0, '{', '}'})
	f.Add([]byte{0, 0, 0, 2, byte(protocol.TypeSamples), 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		count := func() error { n++; return nil }
		err := ReadSpoolFrom(bytes.NewReader(data), SpoolVisitor{
			Batch:  func(int, *protocol.Batch) error { return count() },
			Sync:   func(int, clock.Record) error { return count() },
			Tester: func(TesterRecord) error { return count() },
		})
		if bytes.HasPrefix(valid, data) && err != nil {
			t.Fatalf("a prefix of a valid spool: %v", err)
		}
		if n > len(data)/6 {
			t.Fatalf("%d frames from %d bytes", n, len(data))
		}
	})
}
