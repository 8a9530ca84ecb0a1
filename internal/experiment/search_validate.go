package experiment

import (
	"fmt"
	"math"
	"strconv"
)

// Search bounds.
const (
	// MinSearchPrecision is the finest search.precision, in percent:
	// finer than this, the steps' own statistics cannot tell loads apart.
	MinSearchPrecision = 0.1
	// MinSearchClients is the fewest clients in all (schedule.testers ×
	// clients_per_tester) a closed-model search can steer: a load that
	// cannot move cannot be searched.
	MinSearchClients = 2
)

// search checks the search key: its objectives, precision, loads and
// time budget, and that the schedule has a model the search can steer.
func (v *validator) search() {
	s := v.e.Search
	if s == nil {
		return
	}
	v.searchSLOs(s.SLO)
	if p := float64(s.Precision); p != 0 && (p < MinSearchPrecision || p >= 100) {
		v.searchAdd("search.precision", fmt.Sprintf("must lie in [%g%%, 100%%), got %g%%", MinSearchPrecision, p))
	}
	v.searchLoad("search.min_capacity", s.MinCapacity)
	okMax := v.searchLoad("search.max_rate", s.MaxRate)
	okStart := v.searchLoad("search.start", s.Start)
	if okMax && okStart && v.searchModel(s) {
		if m := v.e.SearchMaxRate(); m > 0 && s.Start > m {
			v.searchAdd("search.start", fmt.Sprintf("the first load, %g, is above the highest, %g (search.max_rate, or its default)", s.Start, m))
		}
	}
	if v.notNegative("search.time_budget", s.TimeBudget) && s.TimeBudget > v.e.Schedule.TesterDuration {
		v.searchAdd("search.time_budget", fmt.Sprintf("the search runs within the testers' duration: at most schedule.tester_duration, %v, got %v",
			v.e.Schedule.TesterDuration, s.TimeBudget))
	}
}

// searchLoad reports a load that is not a finite number of 0 or more,
// and returns whether x is fine.
func (v *validator) searchLoad(key string, x float64) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		v.add(key, fmt.Sprintf("must be a finite load of 0 or more, got %v", x))
		return false
	}
	return true
}

// SearchMaxRate is the highest load the search tries: search.max_rate,
// else, for an open model, schedule.rate.target (0 when neither is
// given: no bound), for a closed one every client
// (schedule.testers × clients_per_tester). 0 without a search key.
func (e *Experiment) SearchMaxRate() float64 {
	switch {
	case e.Search == nil:
		return 0
	case e.Search.MaxRate > 0:
		return e.Search.MaxRate
	case e.Schedule.Rate != nil:
		return e.Schedule.Rate.Target
	}
	return float64(e.Schedule.Testers) * float64(e.Schedule.ClientsPerTester)
}

// searchModel checks that the schedule gives the search a load to move:
// an open model (schedule.rate, its rate set by the search) or clients
// for a closed one (their number set by the search); it returns whether
// it does.
func (v *validator) searchModel(s *Search) bool {
	n := len(v.problems)
	sc := v.e.Schedule
	if r := sc.Rate; r != nil {
		switch {
		case len(r.Stages) > 0:
			v.searchAdd("schedule.rate.stages", "the search sets the rate: give no stages (schedule.rate.target, if given, is the default search.max_rate)")
		case r.Per == RatePerTester:
			v.searchAdd("schedule.rate.per", "a search's load is the run's calls/s: per must be run")
		case max(s.MaxRate, s.Start) > MaxRate:
			v.searchAdd("search.max_rate", fmt.Sprintf("the loads must be at most %d calls/s, got max_rate %g, start %g", MaxRate, s.MaxRate, s.Start))
		case s.MaxRate == 0 && r.Target == 0 && s.Start == 0:
			v.searchAdd("search.max_rate", "give the highest rate to try (search.max_rate, or schedule.rate.target) or the first (search.start)")
		}
		return len(v.problems) == n
	}
	clients := float64(sc.Testers) * float64(sc.ClientsPerTester)
	switch {
	case clients < MinSearchClients:
		v.searchAdd("search", fmt.Sprintf("the search needs a load it can move: an open model (schedule.rate: the search sets the rate) or at least %d clients in all "+
			"(schedule.testers × clients_per_tester: the search sets how many are active), got %g", MinSearchClients, clients))
	case s.MaxRate > clients:
		v.searchAdd("search.max_rate", fmt.Sprintf("a closed model's load is its active clients: at most schedule.testers × clients_per_tester = %g, got %g", clients, s.MaxRate))
	case s.Start != 0 && s.Start < 1:
		v.searchAdd("search.start", fmt.Sprintf("a closed model's load is its active clients: at least 1, got %g", s.Start))
	}
	return len(v.problems) == n
}

// searchSLOs checks the objectives: at least one, each an upper bound a
// load can meet (search.ParseSLO decides on the same terms), one a metric.
func (v *validator) searchSLOs(slos []string) {
	if len(slos) == 0 {
		v.searchAdd("search.slo", `give at least one objective, e.g. slo: ["p99_ms < 200"]`)
		return
	}
	seen := map[string]bool{}
	for i, text := range slos {
		key := "search.slo[" + strconv.Itoa(i) + "]"
		c, err := ParseCheck(text)
		if err == nil {
			err = searchObjective(c)
		}
		switch {
		case err != nil:
			v.searchAdd(key, err.Error())
		case seen[c.Metric]:
			v.searchAdd(key, c.Metric+" has an objective already: give each metric one")
		}
		seen[c.Metric] = true
	}
}

// searchObjective refuses a check no load can be searched against: not
// an upper bound, a metric the search does not decide on, or a bound
// every load meets or none can.
func searchObjective(c Check) error {
	rank, pct := Percentile(c.Metric)
	switch {
	case c.Op != "<" && c.Op != "<=":
		return fmt.Errorf("an objective is an upper bound a load can meet: want < or <=, got %s", c.Op)
	case !(pct && rank < 100) && c.Metric != MetricErrorRate && c.Metric != MetricMeanMs:
		return fmt.Errorf("the search decides on pNN_ms (NN below 100), error_rate and mean_ms only, got %s", c.Metric)
	case c.Metric == MetricErrorRate && (c.Bound <= 0 || c.Bound >= 100):
		return fmt.Errorf("an error rate objective must lie above 0%% and below 100%%, got %g%%", c.Bound)
	case c.Metric != MetricErrorRate && (c.Bound <= 0 || c.Bound > 3.6e6):
		return fmt.Errorf("a response time objective must lie above 0 ms and at most an hour, got %g ms", c.Bound)
	}
	return nil
}

// searchAdd records a problem with key at the line key was set on, else
// at the line of the search key.
func (v *validator) searchAdd(key, msg string) { v.addAt(key, "search", msg) }
