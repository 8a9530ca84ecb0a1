package analyze

import (
	"math"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

// TestSecondTesterBound: one second's health rows are judged by the rule
// of the quanta: a tester at 97% of its CPU of two bounds the second, one
// of five does not, and a second without health is not bound.
func TestSecondTesterBound(t *testing.T) {
	row := func(slot int, cpu float64) sample.Health {
		nan := math.NaN()
		return sample.Health{Slot: slot, T: 100, CPUPct: cpu, CPUCores: 1, HostBusyPct: nan, HostStealPct: nan,
			ThrottledPct: nan, LagMeanMs: 0.1, LagMaxMs: 0.5, Starts: 100, FDs: 20, FDLimit: 1024}
	}
	if got := SecondTesterBound([]sample.Health{row(0, 97), row(1, 10)}, 2, 8); got != "tester CPU 97% (tester 0)" {
		t.Errorf("one starved tester of two: %q", got)
	}
	five := []sample.Health{row(0, 97), row(1, 10), row(2, 10), row(3, 10), row(4, 10)}
	if got := SecondTesterBound(five, 5, 8); got != "" {
		t.Errorf("one starved tester of five: %q, want not bound", got)
	}
	if got := SecondTesterBound(nil, 3, 8); got != "" {
		t.Errorf("no health: %q", got)
	}
}
