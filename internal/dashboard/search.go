package dashboard

import (
	"encoding/json"
	"net/http"

	"github.com/diperf/diperf/internal/search"
)

// searchState is /api/search's answer: search false when the run is not
// a capacity search (or no step of it ended yet); else true with the
// search's state so far (search.Result: its steps, the bracket, and the
// verdict once it is known).
type searchState struct {
	Search bool `json:"search"`
	*search.Result
}

// searchAPI serves the capacity search's state so far (live.Run.Search),
// always 200: {"search": false} when there is none, so that the page can
// ask every second without an error in its console.
func (s *Server) searchAPI(w http.ResponseWriter, _ *http.Request) {
	st := searchState{}
	if res, ok := s.run.Search(); ok {
		st = searchState{Search: true, Result: &res}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(st)
}
