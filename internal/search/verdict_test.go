package search

import (
	"testing"
	"time"
)

// TestVerdicts runs every early stop against the simulated service of 4
// servers of 10 ms (capacity 400 calls/s for p99_ms < 15).
func TestVerdicts(t *testing.T) {
	slo := "p99_ms < 15"
	cases := []struct {
		name    string
		cfg     Config
		bound   func(float64) string
		verdict string
		lo, hi  float64 // 0: null
	}{
		{"fails at the lowest load", Config{Start: 500, MaxRate: 2000}, nil, VerdictFailsAtLowest, 0, 500},
		{"holds at max-rate", Config{MaxRate: 200}, nil, VerdictHoldsAtMax, 200, 0},
		{"tester-limited", Config{MaxRate: 1600}, func(r float64) string {
			if r > 300 {
				return "tester_cpu_pct 100"
			}
			return ""
		}, VerdictTesterLimited, 200, 0},
		{"budget out", Config{MaxRate: 1600, Budget: 15 * time.Second}, nil, VerdictBudgetOut, 400, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.SLOs = mustSLOs(t, slo)
			m := newSim(4, 0.010, false, 1)
			m.bound = c.bound
			res, err := runSearch(c.cfg, m)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != c.verdict {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict, res.Why, c.verdict)
			}
			if !same(res.Capacity, c.lo) || !same(res.Interval[0], c.lo) || !same(res.BreaksAt, c.hi) || !same(res.Interval[1], c.hi) {
				t.Errorf("capacity %v interval %v breaks at %v, want lo %g hi %g (0: null)", res.Capacity, res.Interval, res.BreaksAt, c.lo, c.hi)
			}
			if res.NoneMeets() != (c.verdict == VerdictFailsAtLowest) {
				t.Errorf("NoneMeets %v for %s", res.NoneMeets(), c.verdict)
			}
			if c.cfg.Budget > 0 && res.Seconds > secs(c.cfg.Budget) {
				t.Errorf("used %d s of a %v budget", res.Seconds, c.cfg.Budget)
			}
			t.Logf("%s: %s", res.Verdict, res.Why)
		})
	}
}

// same reports whether p is nil for want 0, else points to want.
func same(p *float64, want float64) bool {
	if want == 0 {
		return p == nil
	}
	return p != nil && *p == want
}

// TestHoldsWithoutMaxRate: without a max-rate the loads grow to 1e9 and
// the search stops there, holding, rather than step at 1e9 for ever.
func TestHoldsWithoutMaxRate(t *testing.T) {
	s, err := New(Config{SLOs: mustSLOs(t, "p99_ms < 15"), Start: 1e8})
	if err != nil {
		t.Fatal(err)
	}
	load, steps := s.First(), 0
	for done := false; !done && steps < 20; steps++ {
		st := s.NewStep(load)
		for !st.Add(second(300, 5, 0)) { // the load is not a rate here: 300 calls a second at any load
		}
		load, done = s.Next(st.Record())
	}
	if r := s.Result(); r.Verdict != VerdictHoldsAtMax || !same(r.Capacity, 1e9) || steps != 5 {
		t.Errorf("%d steps, verdict %s, capacity %v: want holds-at-max at 1e9 in 5 steps", steps, r.Verdict, r.Capacity)
	}
}
