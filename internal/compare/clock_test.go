package compare

import (
	"slices"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// writeSkewedRun writes a run of two testers that each made back-to-back
// calls of 10 ms over the same 20 s of their own clocks, tester 1's clock
// running 10 s behind the global one (its sync records say so).
func writeSkewedRun(t *testing.T) string {
	t.Helper()
	const t0, rt = int64(1_700_000_000_000_000_000), int64(10 * time.Millisecond)
	end := t0 + int64(20*time.Second)
	var testers []*rundir.TesterRecord
	var batches []*protocol.Batch
	for slot, off := range []int64{0, int64(10 * time.Second)} {
		b := &protocol.Batch{}
		for at, seq := t0, uint64(1); at+rt <= end; at, seq = at+rt, seq+1 {
			b.Samples = append(b.Samples, sample.Sample{Seq: seq, Start: at, End: at + rt, Status: sample.OK})
		}
		batches = append(batches, b)
		testers = append(testers, &rundir.TesterRecord{Slot: slot, ID: "h:1", Host: "h", StartNs: t0 + off, StopNs: end + off,
			Syncs: []clock.Record{{LocalNs: t0, OffsetNs: off, RTTNs: 1000, BoundNs: 500}}})
	}
	return writeRunDir(t, "name: skew\nclient:\n  exec: [\"true\"]\nschedule:\n  testers: 2\n", testers, batches)
}

// TestLoadClock checks that compare places samples as the clock mode says:
// corrected, the two testers overlap for 10 s of 30 (median throughput
// 100 calls/s); raw, they overlap all along (200 calls/s).
func TestLoadClock(t *testing.T) {
	t.Parallel()
	dir := writeSkewedRun(t)
	tests := []struct {
		clock string
		want  float64 // median calls/s
	}{
		{pipeline.ClockSync, 100}, // the default: corrected by the sync records
		{pipeline.ClockRaw, 200},  // as the testers' own clocks said
	}
	for _, tt := range tests {
		d, err := Load(dir, pipeline.Options{Clock: tt.clock})
		if err != nil {
			t.Fatal(err)
		}
		x := slices.Clone(d.Throughput)
		slices.Sort(x)
		if got := x[len(x)/2]; got != tt.want {
			t.Errorf("--clock %s: median throughput %g calls/s over %d quanta, want %g", tt.clock, got, len(x), tt.want)
		}
		if len(d.RTms) != 4000 {
			t.Errorf("--clock %s: %d response times, want 4000", tt.clock, len(d.RTms))
		}
	}
	if _, err := Runs(dir, dir, Options{Clock: "bogus"}); err == nil {
		t.Error("an unknown clock mode compared")
	}
}
