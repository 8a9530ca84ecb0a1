package controller

import (
	"math"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

// TestSearchSecondBound: a second's tester-bound reason comes from the
// testers' health rows of that second only, by the analysis' rule.
func TestSearchSecondBound(t *testing.T) {
	c := &controller{steer: &steering{cpt: 8}, slots: make([]*slot, 2)}
	nan := math.NaN()
	row := func(slot int, sec int64, cpu float64) sample.Health {
		return sample.Health{Slot: slot, T: sec, CPUPct: cpu, CPUCores: 1, HostBusyPct: nan, HostStealPct: nan, ThrottledPct: nan,
			LagMeanMs: 0.1, LagMaxMs: 0.2, Starts: 50, FDs: 10, FDLimit: 1024}
	}
	for _, h := range []sample.Health{row(0, 100, 98), row(1, 100, 20), row(0, 101, 30), row(1, 101, 20)} {
		c.health.put(h)
	}
	if got := c.secondBound(100, 2); got != "tester CPU 98% (tester 0)" {
		t.Errorf("second 100: %q, want tester 0's CPU", got)
	}
	if got := c.secondBound(101, 2); got != "" {
		t.Errorf("second 101: %q, want not bound", got)
	}
	if got := c.secondBound(102, 2); got != "" {
		t.Errorf("second 102 (no health): %q", got)
	}
}
