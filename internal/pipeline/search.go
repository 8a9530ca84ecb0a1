package pipeline

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/search"
)

// joinSearch puts the run directory's search.json, when the run was a
// capacity search, into res's summary as its search block; a file that
// cannot be read, or says what the run cannot hold, is left out and
// SearchRefused says why.
func (d *Dataset) joinSearch(res *analyze.Result) {
	r, err := rundir.ReadSearch(d.Dir)
	if r == nil && err == nil {
		return
	}
	s := &res.Summary
	unit, minCap := analyze.SearchUnitClients, 0.0
	if d.Experiment.Schedule.Rate != nil {
		unit = analyze.SearchUnitRate
	}
	if d.Experiment.Search != nil {
		minCap = d.Experiment.Search.MinCapacity
	}
	if err == nil {
		if s.Search, err = analyze.NewSearchSummary(r, unit, s.DurationS, minCap); err != nil {
			err = fmt.Errorf("%s: %w", rundir.Search, err)
		} else {
			markSteps(res, r.Steps)
		}
	}
	if err != nil {
		s.SearchRefused = err.Error()
		if d.progress != nil {
			fmt.Fprintf(d.progress, "diperf: the search's answer is refused, %s\n", s.SearchRefused)
		}
	}
}

// markSteps sets each quantum's Step: the step whose seconds, [From, To]
// in Unix seconds, hold the quantum's start (the steps are in order and
// apart: analyze.NewSearchSummary refused them otherwise); steps of
// unknown seconds (0) are left out.
func markSteps(res *analyze.Result, steps []search.StepRecord) {
	known := slices.DeleteFunc(slices.Clone(steps), func(st search.StepRecord) bool { return st.From <= 0 })
	origin := res.Summary.OriginNs
	for i := range res.Quanta {
		at := origin + int64(res.Quanta[i].T*1e9)
		sec := at / 1e9
		if at < 0 && at%1e9 != 0 {
			sec-- // floor
		}
		j, _ := slices.BinarySearchFunc(known, sec, func(st search.StepRecord, s int64) int { return cmp.Compare(st.From, s+1) })
		// known[j-1] is the last step from at or before sec.
		if j > 0 && known[j-1].To >= sec {
			res.Quanta[i].Step = known[j-1].Step
		}
	}
}
