package report

import (
	"strconv"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/search"
)

// searchSection is the page's capacity search: the verdict in words, its
// figures, its graphs and the table of its steps.
type searchSection struct {
	Verdict, Meaning, Why string
	Facts                 []fact
	Figures               []figure
	Steps                 []searchRow
	Notes                 []string
}

// searchRow is one row of the steps' table.
type searchRow struct {
	Step                                int
	Load, Seconds, Calls, Measured, Thr string
	Decision, Binding, Why              string
	Weak                                bool
	Fails                               bool
}

// searchSectionOf is v as the page shows it; nil when v is nil (the run
// was not a search).
func searchSectionOf(r *analyze.Result, v *searchView) *searchSection {
	if v == nil {
		return nil
	}
	if v.note != "" {
		return &searchSection{Notes: []string{v.note}}
	}
	res := &v.res
	s := &searchSection{Verdict: res.Verdict, Meaning: search.VerdictWords(res.Verdict), Why: res.Why}
	s.Facts = searchFacts(r, res)
	s.Figures = searchFigures(r, v)
	for i := range res.Steps {
		s.Steps = append(s.Steps, searchRowOf(&res.Steps[i]))
	}
	s.Notes = searchNotes(v)
	return s
}

// searchFacts are the answer's figures: capacity, interval, binding SLO,
// breaking load, precision, steps, calls and seconds.
func searchFacts(r *analyze.Result, res *search.Result) []fact {
	unit := " " + loadUnit(r)
	opt := func(p *float64, none string) string {
		if p == nil {
			return none
		}
		return num(*p) + unit
	}
	binding := res.Binding
	if binding == "" {
		binding = "none failed"
	}
	return []fact{
		{"Capacity", opt(res.Capacity, "none: no load met every objective")},
		{"Interval [lo, hi]", "[" + opt(res.Interval[0], "none") + ", " + opt(res.Interval[1], "none failed") + "]"},
		{"Binding SLO", binding},
		{"Breaks at", opt(res.BreaksAt, "no load failed")},
		{"Precision asked", num(100*res.Precision) + "%"},
		{"Steps", strconv.Itoa(len(res.Steps))},
		{"Calls", strconv.FormatUint(res.Calls, 10)},
		{"Seconds", strconv.Itoa(res.Seconds)},
	}
}

// searchRowOf is step st as a row of the table.
func searchRowOf(st *search.StepRecord) searchRow {
	secs := strconv.Itoa(st.Seconds) + " (warm-up " + strconv.Itoa(st.WarmupS)
	if st.RestS > 0 {
		secs += ", rest " + strconv.Itoa(st.RestS)
	}
	if !st.Settled && st.WarmupS > 0 {
		secs += ", not settled"
	}
	return searchRow{Step: st.Step, Load: num(st.Load), Seconds: secs + ")",
		Calls: strconv.FormatUint(st.Calls, 10), Measured: strconv.FormatUint(st.Measured, 10), Thr: num(st.Throughput),
		Decision: st.Decision, Binding: short(st.Binding), Why: short(st.Why), Weak: st.Weak,
		Fails: st.Decision == search.Fails}
}

// searchNotes say what of search.json was left out, and why.
func searchNotes(v *searchView) []string {
	var out []string
	if v.more > 0 {
		out = append(out, "search.json holds "+strconv.Itoa(v.more)+" more steps: only the first "+
			strconv.Itoa(maxSearchSteps)+" are drawn and listed.")
	}
	if n := len(v.refused); n > 0 {
		shown := v.refused[:min(n, 10)]
		s := strconv.Itoa(n) + " entries of search.json were refused as impossible and are not drawn: "
		for i, w := range shown {
			if i > 0 {
				s += "; "
			}
			s += w
		}
		if n > len(shown) {
			s += "; …"
		}
		out = append(out, s+".")
	}
	return out
}

// searchFigures are the search's graphs: (s1) the load against time,
// (s2) each SLO's statistic per step, (s3) the bracket.
func searchFigures(r *analyze.Result, v *searchView) []figure {
	fs := []figure{interactive(newFigure(searchLoadChart(r, v), searchLoadCaption(r, v)), searchLoadSpec(r, v))}
	for i, slo := range v.slos {
		fs = append(fs, newFigure(searchSLOChart(v, i+1, slo), searchSLOCaption(slo)))
	}
	return append(fs, interactive(newFigure(searchBracketChart(r, v), searchBracketCaption(r, v)), searchBracketSpec(r, v)))
}
