package live

import "github.com/diperf/diperf/internal/search"

// SetSearch records the capacity search's state so far (the controller
// calls it after each step and at the end), for the dashboard.
func (r *Run) SetSearch(s search.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.Steps = append([]search.StepRecord(nil), s.Steps...) // the caller's slice grows on
	r.search = &s
}

// Search is the capacity search's state so far; false when the run is
// not a search or no step ended yet.
func (r *Run) Search() (search.Result, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.search == nil {
		return search.Result{}, false
	}
	return *r.search, true
}
