package search

import (
	"testing"
	"time"
)

// TestStaleSeconds: the seconds of the load before a step's (Second.Stale:
// the controller feeds them, the live view holding seconds 3 s) are
// refused, and count against the step's cap only beyond twice it: a step
// after a failed one, fed stale seconds before and after its rest, still
// measures its load. They count against the budget all the same.
func TestStaleSeconds(t *testing.T) {
	cfg := Config{SLOs: mustSLOs(t, "p99_ms < 15"), Start: 100, MaxRate: 400,
		MinWarmup: time.Second, MaxWarmup: 2 * time.Second, StepLimit: 3 * time.Second} // cap 7 s
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	next := s.First()
	for _, ms := range []float64{5, 30} { // 100 meets, 200 fails: the next rests first
		st := s.NewStep(next)
		for !st.Add(second(int(next), ms, next)) {
		}
		next, _ = s.Next(st.Record())
	}
	st := s.NewStep(next)
	stale := func(n int) {
		for range n {
			sec := second(100, 30, 100)
			sec.Stale = true
			if st.Add(sec) {
				t.Fatalf("decided on stale seconds: %+v", st.Record())
			}
		}
	}
	stale(5)
	if st.Offer() != 0 {
		t.Fatalf("a step after a failed one offers %g before its rest", st.Offer())
	}
	st.Add(second(0, 0, 0)) // the rest: nothing ended
	stale(5)
	for !st.Add(second(int(next), 5, next)) {
	}
	if r := st.Record(); r.Decision != Meets || r.Refused != 10 || r.RestS != 1 || r.Seconds < 13 {
		t.Errorf("step %+v: want 10 stale seconds refused, then meets", r)
	}
	b := Config{SLOs: cfg.SLOs, Start: 100, MaxRate: 400, Budget: 8 * time.Second}
	if s, err = New(b); err != nil {
		t.Fatal(err)
	}
	st = s.NewStep(s.First())
	stale(7)
	if sec := second(100, 5, 100); !st.Add(sec) || st.Record().Seconds != 8 {
		t.Errorf("a step of an 8 s budget fed 8 seconds: %+v", st.Record())
	}
}
