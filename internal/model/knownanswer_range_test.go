package model

import (
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
)

// rangeSeeds is how many runs of each case TestKnownAnswerRange
// simulates: 100, or 3 under the race detector or -short (the suite
// stays fast; the coverage is measured on the 100).
func rangeSeeds() int {
	if raceEnabled || testing.Short() {
		return 3
	}
	return 100
}

// rangeCase is a run whose ramp stops below the service's knee (its
// testers never hold more calls than the service has workers), or whose
// top quanta the testers limited (testerBound: the quanta at or above
// that share of the highest load are marked and their throughput halved,
// as a starved tester completes fewer calls than the service could).
type rangeCase struct {
	name        string
	run         closedRun
	q           time.Duration
	testerBound float64
}

// rangeTally counts, over the runs of the cases, the predictions inside
// the tested range that held the truth, and those beyond it.
type rangeTally struct {
	inside, insideHeld, beyond, beyondHeld int
	widest, widths                         float64 // widest interval inside and their sum, relative to the value
}

// TestKnownAnswerRange: a run that did not saturate within the tested
// range predicts within it with 95% intervals that hold the truth (the
// target's min(N/R0, C/S), from the simulation's parameters) in at least
// 95% of the runs, and beyond it only a lower bound, which the truth is
// never below, with the capacity said to be unknown. Tester-bound quanta
// do not enter the fit, and a run whose testers limited its top loads is
// not taken for a saturated one.
func TestKnownAnswerRange(t *testing.T) {
	t.Parallel()
	cases := []rangeCase{
		{"3 testers, 8 workers x 400 ms", demoLike(3, time.Second, 20*time.Second, 8, 400*time.Millisecond), time.Second, 0},
		{"6 testers, 8 workers x 400 ms, 250 ms quanta", demoLike(6, time.Second, 20*time.Second, 8, 400*time.Millisecond), 250 * time.Millisecond, 0},
		{"4 testers, 7 workers x 70 ms, 250 ms quanta", demoLike(4, time.Second, 20*time.Second, 7, 70*time.Millisecond), 250 * time.Millisecond, 0},
		{"6 testers, the top third tester-bound", demoLike(6, time.Second, 20*time.Second, 8, 400*time.Millisecond), time.Second, 2.0 / 3},
	}
	var all rangeTally
	for _, c := range cases {
		tally := c.check(t, rangeSeeds())
		t.Logf("%s: inside the range %d of %d intervals held the truth, %.1f%% of its value wide on average, %.1f%% at most",
			c.name, tally.insideHeld, tally.inside, 100*tally.widths/float64(tally.inside), 100*tally.widest)
		all.inside, all.insideHeld = all.inside+tally.inside, all.insideHeld+tally.insideHeld
		all.beyond, all.beyondHeld = all.beyond+tally.beyond, all.beyondHeld+tally.beyondHeld
	}
	lo, hi := clopperPearson(all.insideHeld, all.inside)
	t.Logf("inside the tested range: %d of %d intervals held the truth (%.1f%%; 95%% Clopper-Pearson %.1f%%-%.1f%%); beyond it %d of %d lower bounds",
		all.insideHeld, all.inside, 100*float64(all.insideHeld)/float64(all.inside), 100*lo, 100*hi, all.beyondHeld, all.beyond)
	if float64(all.insideHeld) < 0.95*float64(all.inside) {
		t.Errorf("inside the tested range the 95%% intervals held the truth in %d of %d predictions, want 95%%", all.insideHeld, all.inside)
	}
	if all.beyondHeld != all.beyond {
		t.Errorf("beyond the tested range the truth fell below the lower bound in %d of %d predictions", all.beyond-all.beyondHeld, all.beyond)
	}
}

// check simulates c seeds times and checks each run's predictions at
// half and at the highest load tested, and at 1.5, 2 and 4 times it.
func (c rangeCase) check(t *testing.T, seeds int) rangeTally {
	truth := c.run.truth()
	var tally rangeTally
	for seed := range uint64(seeds) {
		r, err := c.run.simulate(seed, c.q)
		if err != nil {
			t.Fatal(err)
		}
		marked := c.markTesterBound(r)
		m, err := Fit(r)
		if err != nil {
			t.Fatal(err)
		}
		if m.Saturated() || m.TesterBound != marked {
			t.Errorf("%s seed %d: saturated %v (%s), %d tester-bound quanta left out of %d", c.name, seed, m.Saturated(), m.Saturation.Reason, m.TesterBound, marked)
		}
		for _, f := range []float64{0.5, 1, 1.5, 2, 4} {
			n := f * m.USL.MaxLoad
			p, want := m.Predict(n), truth.Throughput(n)
			if f <= 1 {
				tally.addInside(p.Throughput, want)
				continue
			}
			tally.beyond++
			if p.Throughput.Low <= want {
				tally.beyondHeld++
			}
			if p.Bound != BoundLower || !math.IsInf(p.Throughput.High, 1) || !math.IsNaN(p.Throughput.Value) || !p.Extrapolated || p.Note == "" {
				t.Errorf("%s seed %d: at %.3g, beyond the tested range (load ≤ %.3g) of a run that did not saturate: %+v, want a lower bound only",
					c.name, seed, n, m.USL.MaxLoad, p)
			}
		}
	}
	return tally
}

// addInside counts a prediction x inside the tested range, of the true
// throughput want.
func (tally *rangeTally) addInside(x Interval, want float64) {
	tally.inside++
	w := (x.High - x.Low) / x.Value
	tally.widest, tally.widths = math.Max(tally.widest, w), tally.widths+w
	if x.Low <= want && want <= x.High {
		tally.insideHeld++
	}
}

// markTesterBound marks the quanta at or above c.testerBound times the
// run's highest load as tester-bound and halves their throughput; it
// returns how many it marked.
func (c rangeCase) markTesterBound(r *analyze.Result) int {
	if c.testerBound == 0 {
		return 0
	}
	var top float64
	for _, q := range r.Quanta {
		top = math.Max(top, q.Load)
	}
	var k int
	for i := range r.Quanta {
		if q := &r.Quanta[i]; q.Active > 0 && q.Load >= c.testerBound*top {
			q.TesterBound, q.Throughput = "tester_cpu_pct", q.Throughput/2
			k++
		}
	}
	return k
}
