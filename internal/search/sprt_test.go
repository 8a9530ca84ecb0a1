package search

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/diperf/diperf/internal/stats"
)

// binomialSecond is a second of n calls, each failed (error_rate) or over
// 10 ms (the histogram: 20 ms, else 5 ms) with probability p.
func binomialSecond(rng *rand.Rand, n int, p float64, failures bool) Second {
	s := Second{RT: stats.NewBucket(), Offered: float64(n)}
	k := 0
	for range n {
		if rng.Float64() < p {
			k++
		}
	}
	if failures {
		s.Failed, s.OK = uint64(k), uint64(n-k)
		s.RT.AddRTs(5e6, n-k)
		return s
	}
	s.OK = uint64(n)
	s.RT.AddRTs(20e6, k)
	s.RT.AddRTs(5e6, n-k)
	return s
}

// TestSequentialErrorRates runs the step's sequential test on binomial
// data at the edges of its indifference zone, p0 = b·(1−δ) (the SLO
// meets: saying fails is wrong) and p1 = b·(1+δ) (it fails: saying meets
// is wrong), many seeds each: the wrong decisions, weak ones included,
// must stay within Wald's bound α/(1−β) plus three binomial standard
// deviations of the count.
func TestSequentialErrorRates(t *testing.T) {
	runs := 400
	if raceEnabled {
		runs = 100
	}
	for _, slo := range []string{"error_rate < 1%", "p99_ms < 10"} {
		cfg := mustDefaults(t, Config{SLOs: mustSLOs(t, slo), Start: 1})
		b, d := cfg.SLOs[0].share(), cfg.Indifference
		for _, c := range []struct {
			p     float64
			wrong string
		}{{b * (1 - d), Fails}, {b * (1 + d), Meets}} {
			wrong, weak, calls := decideMany(&cfg, runs, c.p, c.wrong, slo[0] == 'e')
			q := cfg.Alpha / (1 - cfg.Beta)
			nf := float64(runs)
			limit := nf*q + 3*math.Sqrt(nf*q*(1-q))
			if float64(wrong) > limit {
				t.Errorf("%s at p=%g: %d of %d decisions %s, want at most %.0f", slo, c.p, wrong, runs, c.wrong, limit)
			}
			t.Logf("%s at p=%g: %d of %d wrong (at most %.0f), %d weak, %.0f calls measured a step", slo, c.p, wrong, runs, limit, weak, float64(calls)/nf)
		}
	}
}

// decideMany runs runs steps on binomial seconds of share p and counts
// the decisions wrong, the weak ones, and the calls measured.
func decideMany(cfg *Config, runs int, p float64, wrong string, failures bool) (bad, weak int, calls uint64) {
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 7))
		st := newStep(cfg, 1, 200, secs(cfg.StepLimit))
		for !st.Add(binomialSecond(rng, 200, p, failures)) {
		}
		r := st.Record()
		if r.Decision == wrong {
			bad++
		}
		if r.Weak {
			weak++
		}
		calls += r.Measured
	}
	return bad, weak, calls
}
