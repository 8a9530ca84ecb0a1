package spool

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// batchOf is the wire payload of a batch of samples numbered seqs.
func batchOf(seqs ...uint64) []byte {
	b := &protocol.Batch{Produced: seqs[len(seqs)-1]}
	for _, s := range seqs {
		b.Samples = append(b.Samples, sample.Sample{Seq: s, Start: int64(s) * 1000, End: int64(s)*1000 + 500, Status: sample.OK})
	}
	return protocol.AppendBatch(nil, b)
}

// TestSpoolFsyncCadence: writes are fsynced within SyncEvery, at most once
// per SyncEvery however many there are, not at all while idle, and at
// Close.
func TestSpoolFsyncCadence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var syncs atomic.Int32
		sp, err := create(filepath.Join(t.TempDir(), "samples.spool"), func(f *os.File) error {
			syncs.Add(1)
			return f.Sync()
		})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * SyncEvery)
		synctest.Wait()
		if n := syncs.Load(); n != 0 {
			t.Errorf("%d fsyncs of an idle spool", n)
		}
		for i := range 50 { // 50 writes over 5 periods
			if err := sp.Batch(0, batchOf(uint64(i+1))); err != nil {
				t.Fatal(err)
			}
			time.Sleep(SyncEvery / 10)
		}
		synctest.Wait()
		if n := syncs.Load(); n < 4 || n > 5 {
			t.Errorf("%d fsyncs over 5 s of writes, want one a second", n)
		}
		before := syncs.Load()
		_ = sp.Batch(0, batchOf(99))
		time.Sleep(SyncEvery)
		synctest.Wait()
		if syncs.Load() != before+1 {
			t.Errorf("the last write was not fsynced within %v", SyncEvery)
		}
		_ = sp.Batch(0, batchOf(100))
		if err := sp.Close(); err != nil {
			t.Fatal(err)
		}
		if syncs.Load() != before+2 {
			t.Errorf("Close did not fsync the last write")
		}
		if err := sp.Batch(0, batchOf(101)); err == nil {
			t.Errorf("a write after Close succeeded")
		}
		if err := sp.Close(); err != nil {
			t.Errorf("a second Close: %v", err)
		}
	})
}

// TestSpoolFsyncFailureStopsWrites: a failed fsync means acknowledged data
// may not be durable; every later write says so.
func TestSpoolFsyncFailureStopsWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sp, err := create(filepath.Join(t.TempDir(), "samples.spool"), func(*os.File) error { return errors.New("EIO") })
		if err != nil {
			t.Fatal(err)
		}
		_ = sp.Batch(0, batchOf(1))
		time.Sleep(SyncEvery)
		synctest.Wait()
		if err := sp.Batch(0, batchOf(2)); err == nil {
			t.Errorf("a write after a failed fsync succeeded")
		}
		if err := sp.Close(); err == nil {
			t.Errorf("Close after a failed fsync returned nil")
		}
	})
}
