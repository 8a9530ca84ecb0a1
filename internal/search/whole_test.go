package search

import (
	"math"
	"testing"
)

// TestWholeLoads: a search of whole loads (a closed model's clients)
// against a service that meets its objective up to 5 clients tries only
// whole loads and stops when no whole load lies inside the bracket: 5,
// breaking at 6, though 6/5 is wider than its precision.
func TestWholeLoads(t *testing.T) {
	s, err := New(Config{SLOs: mustSLOs(t, "p99_ms < 15"), MaxRate: 16, Whole: true})
	if err != nil {
		t.Fatal(err)
	}
	var loads []float64
	load := s.First()
	for done := false; !done && len(loads) < 20; {
		loads = append(loads, load)
		if load != math.Round(load) || load < 1 || load > 16 {
			t.Fatalf("load %g: not a whole load of 1 to 16", load)
		}
		ms := 5.0
		if load > 5 {
			ms = 30
		}
		st := s.NewStep(load)
		for !st.Add(second(100, ms, 0)) {
		}
		load, done = s.Next(st.Record())
	}
	r := s.Result()
	if r.Verdict != VerdictCapacity || !same(r.Capacity, 5) || !same(r.BreaksAt, 6) {
		t.Errorf("loads %v: %s %v breaks at %v, want capacity 5 breaking at 6", loads, r.Verdict, r.Capacity, r.BreaksAt)
	}
}
