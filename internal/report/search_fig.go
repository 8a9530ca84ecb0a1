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

// allFigures is every figure of the page: the search's, the charts,
// then the per-host section's.
func (p *page) allFigures() []figure {
	var fs []figure
	if p.Search != nil {
		fs = append(fs, p.Search.Figures...)
	}
	fs = append(fs, p.Figures...)
	if p.Hosts != nil {
		fs = append(fs, p.Hosts.Figures...)
	}
	return fs
}
