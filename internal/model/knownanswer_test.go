package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
)

// knownAnswerSeeds is how many runs of each case the known-answer test
// simulates: 50, or 12 under the race detector, which makes each
// analysis of a simulated run ten times slower.
var knownAnswerSeeds = map[bool]int{false: 50, true: 12}[raceEnabled]

// knownAnswer is the worst relative error and the interval coverage of
// the predicted throughput at one load, over the runs of a case.
type knownAnswer struct {
	worst   float64 // largest |predicted − true| / true
	covered int     // runs whose 95% interval held the truth
}

func TestKnownAnswerDemoTarget(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		run  closedRun
	}{
		// the run: demo --testers 16 --tester-start-interval 1s
		// --tester-duration 20s --workers 7 --service-time 70ms
		{"16 testers, 7 workers x 70 ms", demoLike(16, time.Second, 20*time.Second, 7, 70*time.Millisecond)},
		// the default demo: 20 testers 750 ms apart for 27 s, 8 workers x 400 ms
		{"default demo", demoLike(20, 750*time.Millisecond, 27*time.Second, 8, 400*time.Millisecond)},
	}
	for _, tt := range cases {
		for _, q := range []time.Duration{time.Second, 250 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s at %v", tt.name, q), func(t *testing.T) {
				t.Parallel()
				checkKnownAnswer(t, tt.run, q)
			})
		}
	}
}

// checkKnownAnswer simulates run knownAnswerSeeds times, analyzes each at
// quantum q, fits the model and checks its predictions at half and twice
// the knee (within 5%) and at 1.5 times the highest load (within 10%),
// and that their 95% intervals hold the truth in 95% of the runs.
func checkKnownAnswer(t *testing.T, run closedRun, q time.Duration) {
	truth := run.truth()
	var at [3]knownAnswer
	limit := [3]float64{0.05, 0.05, 0.10}
	chosen := map[string]int{}
	for seed := range uint64(knownAnswerSeeds) {
		r, err := run.simulate(seed, q)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Fit(r)
		if err != nil {
			t.Fatal(err)
		}
		chosen[m.Chosen]++
		loads := [3]float64{truth.Knee() / 2, 2 * truth.Knee(), 1.5 * m.USL.MaxLoad}
		for i, n := range loads {
			p, want := m.Predict(n).Throughput, truth.Throughput(n)
			e := math.Abs(p.Value-want) / want
			at[i].worst = math.Max(at[i].worst, e)
			if p.Low <= want && want <= p.High {
				at[i].covered++
			}
			if e > limit[i] {
				t.Errorf("seed %d: X(%.2f) = %+v, true %.2f (%+.1f%%); %s: %s", seed, n, p, want, 100*(p.Value-want)/want, m.Chosen, m.Selection.Reason)
			}
		}
	}
	t.Logf("true R0 %.2f ms, X* %.1f calls/s, knee %.2f; chosen %v", truth.R0Ms, truth.Plateau, truth.Knee(), chosen)
	for i, name := range []string{"0.5x knee", "2x knee", "1.5x highest load"} {
		t.Logf("%-17s worst error %4.1f%%, interval held the truth in %d of %d runs", name, 100*at[i].worst, at[i].covered, knownAnswerSeeds)
		if want := 0.95; float64(at[i].covered) < want*float64(knownAnswerSeeds) {
			t.Errorf("%s: the 95%% interval held the truth in %d runs of %d, want %.0f%%", name, at[i].covered, knownAnswerSeeds, 100*want)
		}
	}
}

// retrogradeRun is a run of a service whose throughput follows the USL
// truth and falls beyond its peak: the load climbs from 1 to top over 40%
// of the run, holds for 20% and falls back, a quantum of q each second of
// a 60 s run; each quantum completes a Poisson number of calls about
// truth(load)·q, with the mean response time Little's law gives.
func retrogradeRun(truth Params, top float64, q time.Duration, seed uint64) *analyze.Result {
	rng := rand.New(rand.NewPCG(seed, 0x7e7))
	qs := q.Seconds()
	steps := int(60 / qs)
	r := &analyze.Result{Quanta: make([]analyze.Quantum, steps)}
	for i := range steps {
		f := float64(i) / float64(steps)
		load := 1 + (top-1)*min(1, f/0.4, (1-f)/0.4)
		calls := poisson(rng, truth.Throughput(load)*qs)
		x := float64(calls) / qs
		r.Quanta[i] = analyze.Quantum{T: float64(i) * qs, Load: load, Active: 1, Throughput: x,
			RT: analyze.RTStats{N: calls, Mean: 1000 * load / math.Max(x, 1/qs)}}
	}
	return r
}

// poisson draws a Poisson count of mean mu (normal approximation, rounded,
// for the means of hundreds used here).
func poisson(rng *rand.Rand, mu float64) int {
	return max(0, int(math.Round(mu+math.Sqrt(mu)*rng.NormFloat64())))
}

func TestKnownAnswerRetrograde(t *testing.T) {
	t.Parallel()
	// peak at N* = sqrt((1−σ)/κ) = 35 calls in flight, 665 calls/s; the
	// run reaches 60, where throughput has fallen to 599 (490 at 90)
	truth := Params{50, 0.02, 0.0008}
	peak, _, _ := truth.Peak()
	const top = 60
	for _, q := range []time.Duration{time.Second, 250 * time.Millisecond} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			at := []float64{peak / 2, peak, top, 1.5 * top}
			limit := []float64{0.05, 0.05, 0.05, 0.10}
			worst := make([]float64, len(at))
			covered := make([]int, len(at))
			const seeds = 20
			for seed := range uint64(seeds) {
				m, err := Fit(retrogradeRun(truth, top, q, seed))
				if err != nil {
					t.Fatal(err)
				}
				if m.Chosen != ModelUSL || m.USL.Decline == nil || !m.USL.Decline.Shown {
					t.Fatalf("seed %d: model %s, decline %+v: want the USL, its decline shown (%s)", seed, m.Chosen, m.USL.Decline, m.Selection.Reason)
				}
				for i, n := range at {
					p, want := m.Predict(n).Throughput, truth.Throughput(n)
					e := math.Abs(p.Value-want) / want
					worst[i] = math.Max(worst[i], e)
					if p.Low <= want && want <= p.High {
						covered[i]++
					}
					if e > limit[i] {
						t.Errorf("seed %d: X(%g) = %+v, true %.1f", seed, n, p, want)
					}
				}
			}
			t.Logf("at 0.5x peak, peak, highest load, 1.5x highest load: worst error %.1f%%, interval held the truth in %v of %d runs",
				scale(worst, 100), covered, seeds)
			for i, c := range covered {
				if c < seeds*3/5 {
					t.Errorf("X(%g): the 95%% interval held the truth in %d runs of %d, want at least 3 in 5", at[i], c, seeds)
				}
			}
		})
	}
}

// scale returns v times k.
func scale(v []float64, k float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * k
	}
	return out
}
