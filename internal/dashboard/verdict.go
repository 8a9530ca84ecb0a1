package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
)

// maxSummaryBytes bounds the summary.json the dashboard reads: a summary
// holds at most 64 extras, 100 early stops and 20 refused testers.
const maxSummaryBytes = 1 << 20

// verdict serves the run's saturation verdict in the words of the
// summary ("saturated at load N*, ...", "not saturated within the tested
// range ...", ...), read from the summary.json beside the report once the
// run is analyzed.
func (s *Server) verdict(w http.ResponseWriter, r *http.Request) {
	if s.o.Report == "" {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(filepath.Join(filepath.Dir(s.o.Report), rundir.Summary))
	if err != nil {
		http.Error(w, "the summary is not written yet: it is when the run ends", http.StatusNotFound)
		return
	}
	defer f.Close()
	var sum struct {
		Saturation analyze.Saturation `json:"saturation"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxSummaryBytes)).Decode(&sum); err != nil {
		http.Error(w, "summary.json is unreadable: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"verdict": sum.Saturation.Verdict,
		"saturation": sum.Saturation.Text()})
}
