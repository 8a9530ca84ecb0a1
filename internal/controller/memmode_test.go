package controller

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMemoryModeIsBounded has a tester flood a controller.mode: memory
// run whose controller.memory_limit_mb is 1 with 40 MB of samples (50
// batches of 3,000 failed calls with 250-byte errors): the controller's
// live heap grows by less than the limit and some slack (it grew by the
// 40 MB), the spool spills to disk past the limit (a memory-spill
// event), and every sample is stored.
func TestMemoryModeIsBounded(t *testing.T) {
	const limitMB, batches, perBatch = 1, 50, 3000
	e := testExperiment(t, 1, 30*time.Second)
	e.Controller.Mode, e.Controller.MemoryLimitMB = experiment.ModeMemory, limitMB
	var grew uint64
	dir, rec := runLiar(t, e, func(l *liar) {
		before := heapInUse()
		for range batches {
			ss := l.honest(perBatch)
			for i := range ss {
				ss[i].Status, ss[i].Err = sample.Failed, strings.Repeat("e", 250)
			}
			l.batch(ss)
		}
		l.waitAcked()
		grew = heapInUse() - min(before, heapInUse())
		l.done(l.honestDone())
	})
	const slack = 8 << 20
	if grew > limitMB<<20+slack {
		t.Errorf("the controller's heap grew by %d MB while the tester flooded it; the limit is %d MB (and %d MB of slack)", grew>>20, limitMB, slack>>20)
	}
	t.Logf("the heap grew by %.1f MB", float64(grew)/(1<<20))
	if rec.Received != batches*perBatch || rec.Lost() != 0 {
		t.Errorf("received %d samples, %d lost; want %d, none lost", rec.Received, rec.Lost(), batches*perBatch)
	}
	if n, err := rundir.CountSamples(dir); err != nil || n != batches*perBatch {
		t.Errorf("samples.parquet has %d rows (%v), want %d", n, err, batches*perBatch)
	}
	spilled := false
	for _, ev := range events(t, dir) {
		spilled = spilled || ev.Event == "memory-spill"
	}
	if !spilled {
		t.Error("no memory-spill event")
	}
}
