package experiment

import (
	"strings"
	"testing"
	"time"
)

// searchBase is an open-model experiment whose rate the search sets.
const searchBase = base + "schedule:\n  tester_duration: 2m\n  rate: {arrivals: uniform}\n"

// A search key is read with its objectives, precision, loads and budget,
// and an open model needs no rate of its own (the search sets it).
func TestSearchKey(t *testing.T) {
	t.Parallel()
	in := searchBase + `search:
  slo: ["p99_ms < 200", "error_rate < 1%"]
  precision: 5%
  max_rate: 2000
  start: 100
  time_budget: 90s
`
	exp, err := Parse([]byte(in), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := exp.Search
	if s == nil || len(s.SLO) != 2 || s.SLO[1] != "error_rate < 1%" || s.Precision != 5 || s.MaxRate != 2000 || s.Start != 100 ||
		s.TimeBudget.D() != 90*time.Second {
		t.Fatalf("search = %+v", s)
	}
	if m := exp.SearchMaxRate(); m != 2000 {
		t.Errorf("SearchMaxRate = %g, want 2000", m)
	}
}

// SearchMaxRate's defaults: the open model's target, every client of a
// closed one.
func TestSearchMaxRateDefaults(t *testing.T) {
	t.Parallel()
	open, err := Parse([]byte(base+"schedule: {rate: 800}\nsearch: {slo: [p99_ms < 20]}\n"), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	closed, err := Parse([]byte(base+"schedule: {testers: 2, clients_per_tester: 8}\nsearch: {slo: [p99_ms < 20]}\n"), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := open.SearchMaxRate(), closed.SearchMaxRate(); a != 800 || b != 16 {
		t.Errorf("SearchMaxRate: open %g, closed %g; want 800, 16", a, b)
	}
}

// Every problem of a search key names its key and line.
func TestSearchProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		line     int
		key, msg string
	}{
		{"no slo", searchBase + "search:\n  max_rate: 100\n", 6, "search.slo", "give at least one objective"},
		{"empty slo", searchBase + "search:\n  slo: []\n  max_rate: 100\n", 7, "search.slo", "give at least one objective"},
		{"lower bound", searchBase + "search:\n  max_rate: 100\n  slo:\n    - p99_ms < 200\n    - throughput > 100\n", 10, "search.slo[1]", "want < or <=, got >"},
		{"max_ms", searchBase + "search:\n  max_rate: 100\n  slo: [max_ms < 200]\n", 8, "search.slo[0]", "pNN_ms (NN below 100), error_rate and mean_ms only"},
		{"p100", searchBase + "search:\n  max_rate: 100\n  slo: [p100_ms < 200]\n", 8, "search.slo[0]", "pNN_ms (NN below 100)"},
		{"error rate 100%", searchBase + "search:\n  max_rate: 100\n  slo: [error_rate < 100%]\n", 8, "search.slo[0]", "below 100%"},
		{"zero ms", searchBase + "search:\n  max_rate: 100\n  slo: [p99_ms < 0]\n", 8, "search.slo[0]", "above 0 ms"},
		{"unknown metric", searchBase + "search:\n  max_rate: 100\n  slo: [p99ms < 10]\n", 8, "search.slo[0]", `did you mean "p99_ms"?`},
		{"twice", searchBase + "search:\n  max_rate: 100\n  slo: [p99_ms < 10, p99_ms < 20]\n", 8, "search.slo[1]", "has an objective already"},
		{"precision 0.01%", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: 100\n  precision: 0.01%\n", 9, "search.precision", "must lie in [0.1%, 100%)"},
		{"precision 100%", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: 100\n  precision: 100%\n", 9, "search.precision", "must lie in"},
		{"negative precision", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: 100\n  precision: -5\n", 9, "search.precision", "got -5%"},
		{"nan max", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: .nan\n", 8, "search.max_rate", "finite load"},
		{"inf start", searchBase + "search:\n  slo: [p99_ms < 10]\n  start: .inf\n", 8, "search.start", "finite load"},
		{"negative max", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: -1\n", 8, "search.max_rate", "got -1"},
		{"start above max", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: 100\n  start: 200\n", 9, "search.start", "above the highest, 100"},
		{"open max too high", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: 1e8\n", 8, "search.max_rate", "at most 10000000 calls/s"},
		{"open no load", searchBase + "search:\n  slo: [p99_ms < 10]\n", 6, "search.max_rate", "give the highest rate to try"},
		{"open stages", base + "schedule:\n  rate:\n    stages: [{duration: 10s, target: 5}]\nsearch:\n  slo: [p99_ms < 10]\n  max_rate: 100\n", 5, "schedule.rate.stages", "give no stages"},
		{"open per tester", base + "schedule:\n  rate:\n    per: tester\nsearch:\n  slo: [p99_ms < 10]\n  max_rate: 100\n", 5, "schedule.rate.per", "per must be run"},
		{"closed one client", base + "search:\n  slo: [p99_ms < 10]\n", 3, "search", "at least 2 clients in all"},
		{"closed max above clients", base + "schedule: {testers: 2, clients_per_tester: 4}\nsearch:\n  slo: [p99_ms < 10]\n  max_rate: 9\n", 6, "search.max_rate", "at most schedule.testers × clients_per_tester = 8, got 9"},
		{"closed start below 1", base + "schedule: {testers: 2, clients_per_tester: 4}\nsearch:\n  slo: [p99_ms < 10]\n  start: 0.5\n", 6, "search.start", "at least 1, got 0.5"},
		{"budget longer", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: 100\n  time_budget: 3m\n", 9, "search.time_budget", "at most schedule.tester_duration, 2m0s, got 3m0s"},
		{"nan min capacity", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: 100\n  min_capacity: .nan\n", 9, "search.min_capacity", "finite load"},
		{"budget negative", searchBase + "search:\n  slo: [p99_ms < 10]\n  max_rate: 100\n  time_budget: -1s\n", 9, "search.time_budget", "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.in), "e.yaml")
			ps := problems(t, err)
			for _, p := range ps {
				if p.Key == tt.key && p.Line == tt.line && strings.Contains(p.Msg, tt.msg) {
					return
				}
			}
			t.Errorf("problems %v; want %s at line %d: %q", ps, tt.key, tt.line, tt.msg)
		})
	}
}

// A rate of neither target nor stages is refused without a search.
func TestRateNeedsTargetWithoutSearch(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte(base+"schedule:\n  rate: {arrivals: poisson}\n"), "e.yaml")
	ps := problems(t, err)
	if len(ps) != 1 || ps[0].Key != "schedule.rate" {
		t.Errorf("problems %v; want schedule.rate: give a rate", ps)
	}
}
