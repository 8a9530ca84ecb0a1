package pipeline

import (
	"fmt"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
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
		}
	}
	if err != nil {
		s.SearchRefused = err.Error()
		if d.progress != nil {
			fmt.Fprintf(d.progress, "diperf: the search's answer is refused, %s\n", s.SearchRefused)
		}
	}
}
