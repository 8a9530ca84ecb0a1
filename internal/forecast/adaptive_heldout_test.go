package forecast

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// heldOut are synthetic traces of shapes the ensemble's design was not
// chosen on, three seeds each: levels 100 ↔ 60 every 10, 30 and 200
// points (noise sd 5); one-off dips to 40 on 5% of the readings; two
// strata (35 on 40% of the readings, else 50); a drift from 100 to 50
// with a sine on it; a random walk; random shifts between 20 and 100 on
// 8% of the readings with 5% noise and dips to half on 4%.
func heldOut() map[string][]Measurement {
	out := map[string][]Measurement{}
	for seed := uint64(1); seed <= 3; seed++ {
		for _, every := range []int{10, 30, 200} {
			out[fmt.Sprintf("levels%d-%d", every, seed)] = Synthetic(300, every, 5, seed)
		}
		for _, shape := range []string{"dips", "strata", "drift", "walk", "shifts"} {
			out[fmt.Sprintf("%s-%d", shape, seed)] = shaped(shape, 120+80*int(seed), seed)
		}
	}
	return out
}

// shaped is one of heldOut's shapes, n readings a second apart.
func shaped(shape string, n int, seed uint64) []Measurement {
	rng := rand.New(rand.NewPCG(seed, 77))
	out := make([]Measurement, n)
	level := 100.0
	for i := range out {
		v := 0.0
		switch shape {
		case "dips":
			v = pick(rng, 0.05, 40+5*rng.NormFloat64(), 100+3*rng.NormFloat64())
		case "strata":
			v = pick(rng, 0.4, 35+2*rng.NormFloat64(), 50+2*rng.NormFloat64())
		case "drift":
			v = 100 - 50*float64(i)/float64(n) + 10*math.Sin(float64(i)/15) + 3*rng.NormFloat64()
		case "walk":
			level += 2 * rng.NormFloat64()
			v = level + 2*rng.NormFloat64()
		case "shifts":
			level = pick(rng, 0.08, 20+80*rng.Float64(), level)
			v = level * (1 + 0.05*rng.NormFloat64()) * pick(rng, 0.04, 0.5, 1)
		}
		out[i] = Measurement{At: time.Unix(1_700_000_000+int64(i), 0), Value: v}
	}
	return out
}

// pick is a with probability p, else b.
func pick(rng *rand.Rand, p, a, b float64) float64 {
	if rng.Float64() < p {
		return a
	}
	return b
}

// TestAdaptiveHeldOut: on the held-out shapes the ensemble's MAE is, on
// average, within 2.5% of the best single forecaster's (1.3% when the
// design was chosen; the ensemble chosen by recent error alone was 3.9%),
// and on none more than 8% above it. Not every trace meets the issue's
// criterion (TestNoForecasterBeatsEveryMember says why none can); this
// keeps a change from trading the recorded traces for the rest.
func TestAdaptiveHeldOut(t *testing.T) {
	sum, n := 0.0, 0
	for name, points := range heldOut() {
		mae := map[string]float64{}
		for _, s := range Evaluate(points, Options{Seed: 1, MaxPeriod: 1}).Full {
			mae[s.Method] = s.MAE
		}
		bestName, best := bestSingle(mae)
		excess := 100 * (mae["adaptive"]/best - 1)
		t.Logf("%-12s best %-11s %+.2f%%", name, bestName, excess)
		if excess > 8 {
			t.Errorf("%s: adaptive MAE %+.2f%% above %s's", name, excess, bestName)
		}
		sum += excess
		n++
	}
	if sum/float64(n) > 2.5 {
		t.Errorf("adaptive MAE on average %+.2f%% above the best single forecaster's, want at most 2.5%%", sum/float64(n))
	}
	t.Logf("mean excess over %d traces: %+.2f%%", n, sum/float64(n))
}
