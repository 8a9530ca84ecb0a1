package cli

import (
	"errors"
	"fmt"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/search"
)

// searchConfig is the search of exp's search key: its objectives parsed,
// the precision as a share, the highest load its default when not given
// (experiment.SearchMaxRate), the time budget the testers' duration when
// not given; refused when the search could not run it.
func searchConfig(exp *experiment.Experiment) (search.Config, error) {
	s := exp.Search
	slos, err := search.ParseSLOs(s.SLO)
	if err != nil {
		return search.Config{}, err
	}
	dur := exp.Schedule.TesterDuration.D()
	budget := s.TimeBudget.D()
	switch {
	case budget == 0:
		budget = dur
	case budget > dur:
		return search.Config{}, fmt.Errorf("search.time_budget %v is longer than schedule.tester_duration %v, within which the search runs", budget, dur)
	}
	cfg := search.Config{SLOs: slos, Start: s.Start, MaxRate: exp.SearchMaxRate(), Precision: float64(s.Precision) / 100, Budget: budget}
	return cfg.Defaults()
}

// searchHint is the hint of a search's refused configuration.
const searchHint = "see docs/search.md for the search key and its flags"

// searchErr is the exit of a run's search, as its summary s holds it:
// nil without a search, or for a capacity found, at least the minimum
// asked (holds-at-max, or a budget-out with a load that met: its bracket
// is wider than asked, and the line says so); exit code 3 when no load
// met the objectives, or the capacity is below the minimum asked; 1 when
// the search gave no answer (tester-limited, no-data, a budget-out
// before any load met or failed) or its search.json was refused.
func searchErr(s *analyze.Summary) error {
	r := s.Search
	switch {
	case s.SearchRefused != "":
		return &errs.Error{Code: errs.CodeFailed, Err: errors.New("the search's answer is refused: " + s.SearchRefused)}
	case r == nil:
		return nil
	case r.NoneMeets():
		return &errs.Error{Code: errs.CodeRefused, Err: errors.New("no load met the objectives: " + r.Why),
			Hint: "the run itself completed; search.csv says what each step measured"}
	case r.BelowMin():
		return &errs.Error{Code: errs.CodeRefused, Err: fmt.Errorf("the capacity, %s %s, is below the minimum asked, %g", load(r.Capacity), r.Unit, r.MinCapacity),
			Hint: "search.csv says what each step measured; diperf compare with an older run says what changed"}
	case r.Verdict == search.VerdictTesterLimited || r.Verdict == search.VerdictNoData || r.Capacity == nil && r.BreaksAt == nil:
		return &errs.Error{Code: errs.CodeFailed, Err: fmt.Errorf("the search found no capacity (%s): %s", r.Verdict, r.Why),
			Hint: "more testers for tester-limited, a longer --time-budget for budget-out; search.csv says what each step measured"}
	}
	return nil
}

// load is a load of a message, or "none".
func load(v *float64) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprintf("%.4g", *v)
}
