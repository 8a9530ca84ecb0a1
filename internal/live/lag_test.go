package live

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/stats"

	"github.com/diperf/diperf/internal/sample"
)

// TestSetLag checks a run told a shorter lag (a capacity search's): a
// second is final that lag after it ends, not Lag, and not before.
func TestSetLag(t *testing.T) {
	r, clk := newRun(t)
	r.SetLag(1500 * time.Millisecond)
	r.SetLag(0) // ignored: no lag is no wait for late batches
	b := float64(base)
	r.Add(0, []sample.Sample{call(b+0.2, b+0.3, sample.OK)}, 1, nil)
	final := 0
	r.OnFinal(func(Second, *stats.Bucket) { final++ })
	clk.t = time.Unix(base+1, 0).Add(1499 * time.Millisecond)
	r.Tick()
	if final != 0 {
		t.Fatalf("second 0 final 1.499 s after it ended, before its lag")
	}
	clk.t = time.Unix(base+1, 0).Add(1500 * time.Millisecond)
	r.Tick()
	if final != 1 {
		t.Fatalf("%d seconds final 1.5 s after second 0 ended, want 1 (Lag is %v)", final, Lag)
	}
}
