package analyze

import (
	"math"
	"testing"
)

// TestSaturationLightLoadFromTheRise checks where R0 of N* = X*·R0 comes
// from in a short run of long calls (the jobs case shortened: 8 slots of
// 1 s jobs, R0 = 1.1 s, testers 0.3 s apart, each for 9 s): the load
// climbs past the knee within one quantum, and the lightest quanta are
// those of the fall, whose calls started deep in the queue and took 4 to
// 5 s. Their response time is not the light-load one: taking it put N*
// at 15 to 22 calls in flight for a cluster of 8 slots. R0 must come from
// the rise: N* = 4.4 × 1.1 = 4.8.
func TestSaturationLightLoadFromTheRise(t *testing.T) {
	t.Parallel()
	q := func(l, x, rt float64) Quantum {
		return Quantum{Load: l, Throughput: x, Active: 1, RT: RTStats{N: int(2 * x), Mean: rt}}
	}
	quanta := []Quantum{
		q(4.6, 2, 1100), q(11, 5, 1370), q(17.7, 4, 2400), q(23.2, 4.5, 3440), q(24, 4, 4310), // the rise, 2 s quanta
		q(23.5, 4.5, 5040), q(20.7, 4, 5410), q(14.2, 4.5, 5370), q(7.5, 4, 5320), q(2.2, 4, 4630), q(0.5, 3, 4600), // the fall
	}
	got := JudgeSaturation(quanta, false)
	want := got.Throughput * 1.1
	t.Logf("saturation %+v, want load %.2f", got, want)
	if !got.Saturated || math.Abs(got.Load-want) > 0.05*want {
		t.Fatalf("saturation load %.2f (saturated %v), want X*·R0 = %.2f ± 5%% with R0 = 1.1 s from the rise", got.Load, got.Saturated, want)
	}
}
