package report

import "github.com/diperf/diperf/internal/analyze"

// addSearch adds v, a capacity search's path, to the page (nil: the run
// was not a search, nothing is added).
func (p *page) addSearch(r *analyze.Result, v *searchView) {
	p.Search = searchSectionOf(r, v)
	if p.Search == nil {
		return
	}
	for _, f := range p.Search.Figures {
		p.Interactive = p.Interactive || f.Spec != ""
	}
}

// allFigures is every figure of the page: the search's, then the charts.
func (p *page) allFigures() []figure {
	if p.Search == nil {
		return p.Figures
	}
	return append(append([]figure(nil), p.Search.Figures...), p.Figures...)
}
