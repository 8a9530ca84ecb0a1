package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/search"
)

// Element ids of the capacity search's graphs (s), drawn when the run
// directory holds search.json; each is also written beside the report as
// an .svg file. The SLO graphs are idSearchSLO followed by the SLO's
// number, from 1.
const (
	SearchLoadGraphID    = "graph-s1-search-load"
	SearchSLOGraphID     = "graph-s2-search-slo-"
	SearchBracketGraphID = "graph-s3-search-bracket"
)

// Bounds of what is drawn of a search, whatever search.json holds.
const (
	maxSearchSteps = 400    // steps drawn and listed: the first ones
	maxSearchSLOs  = 8      // SLO graphs: the first SLOs named
	maxStepSeconds = 86_400 // a step of more seconds than a day is refused
	maxSearchText  = 300    // characters of a why or an SLO's name shown
)

// searchView is a capacity search as the report draws it: the answer and
// the steps that passed the checks, in order.
type searchView struct {
	res     search.Result // its Steps are the steps kept
	slos    []string      // the SLOs named by the kept steps, in order of first use (at most maxSearchSLOs)
	more    int           // steps beyond maxSearchSteps, not drawn
	refused []string      // why each refused step was refused
	timed   bool          // every kept step has its From and To: drawn on the run's time axis
	note    string        // set when the search is not drawn at all: why
}

// readSearch reads dir's search.json: nil when the run was not a search,
// a view with only a note when the file cannot be read.
func readSearch(dir string) *searchView {
	r, err := rundir.ReadSearch(dir)
	switch {
	case err != nil:
		return &searchView{note: "The capacity search is not drawn: " + err.Error() + "."}
	case r == nil:
		return nil
	}
	return searchViewOf(r)
}

// searchViewOf checks r's answer and steps: the steps beyond what is
// possible are refused (and said), the rest kept in order.
func searchViewOf(r *search.Result) *searchView {
	v := &searchView{res: *r, timed: true}
	v.res.Steps = nil
	steps := r.Steps
	if len(steps) > maxSearchSteps {
		v.more, steps = len(steps)-maxSearchSteps, steps[:maxSearchSteps]
	}
	var last *search.StepRecord
	for i := range steps {
		st := &steps[i]
		if why := stepRefusal(st, last); why != "" {
			v.refused = append(v.refused, fmt.Sprintf("step %d: %s", i+1, why))
			continue
		}
		v.res.Steps = append(v.res.Steps, *st)
		last = st
		v.timed = v.timed && st.From > 0
	}
	v.slos = sloNames(v.res.Steps)
	v.checkAnswer()
	return v
}

// stepRefusal says why st cannot be drawn ("" when it can): a figure
// that is not finite, negative or beyond what a search can do, parts
// that do not add up, or a step that does not follow last.
func stepRefusal(st, last *search.StepRecord) string {
	switch {
	case !inRange(st.Load, search.MaxLoad) || !inRange(st.Throughput, search.MaxLoad):
		return "load or throughput not a number in [0, 1e9]"
	case st.Seconds < 0 || st.Seconds > maxStepSeconds || st.RestS < 0 || st.WarmupS < 0 || st.Refused < 0 ||
		st.RestS+st.WarmupS+st.Refused > st.Seconds:
		return "its seconds (held, rest, warm-up, refused) do not add up"
	case st.Measured > st.Calls:
		return "more calls measured than ended"
	case (st.From == 0) != (st.To == 0) || st.From < 0 || st.To < st.From || st.To-st.From >= maxStepSeconds:
		return "its first and last seconds are not a span of the run"
	case last != nil && (st.Step <= last.Step || (st.From > 0 && st.From <= last.To)):
		return "it does not follow the step before it"
	case !knownDecision(st.Decision):
		return "unknown decision " + quoteShort(st.Decision)
	}
	for i := range st.SLOs {
		if why := sloRefusal(&st.SLOs[i]); why != "" {
			return "SLO " + quoteShort(st.SLOs[i].SLO) + ": " + why
		}
	}
	return ""
}

// sloRefusal says why an SLO's record cannot be drawn ("" when it can).
func sloRefusal(s *search.SLORecord) string {
	for _, p := range []*float64{s.Value, s.Low, s.High} {
		if p != nil && !inRange(*p, math.MaxFloat64) {
			return "a statistic that is not a number ≥ 0"
		}
	}
	switch {
	case !inRange(s.Objective, math.MaxFloat64):
		return "an objective that is not a number ≥ 0"
	case s.Low != nil && s.High != nil && *s.Low > *s.High:
		return "an interval whose low end is above its high end"
	case s.Over > s.Of:
		return "more calls over the objective than measured"
	}
	return ""
}

// inRange reports whether v is a number in [0, hi].
func inRange(v, hi float64) bool { return v >= 0 && v <= hi && !math.IsNaN(v) }

// knownDecision reports whether d is one a step can take.
func knownDecision(d string) bool {
	switch d {
	case search.Meets, search.Fails, search.TesterLimited, search.Unmeasured:
		return true
	}
	return false
}

// quoteShort quotes s, cut to maxSearchText characters.
func quoteShort(s string) string { return fmt.Sprintf("%q", short(s)) }

// short cuts s to maxSearchText characters, marking the cut.
func short(s string) string {
	if r := []rune(s); len(r) > maxSearchText {
		return string(r[:maxSearchText]) + "…"
	}
	return s
}

// sloNames lists the SLOs the steps name, in order of first use, at most
// maxSearchSLOs.
func sloNames(steps []search.StepRecord) []string {
	var names []string
	for i := range steps {
		for _, s := range steps[i].SLOs {
			if len(names) < maxSearchSLOs && !slices.Contains(names, s.SLO) {
				names = append(names, s.SLO)
			}
		}
	}
	return names
}
