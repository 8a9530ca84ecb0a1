package report

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// TestFactsOpenModel checks that an open-model run's summary table says
// what was offered and achieved, and how late calls started; a closed-loop
// run's has no such line.
func TestFactsOpenModel(t *testing.T) {
	t.Parallel()
	s := &analyze.Summary{Open: &analyze.OpenModel{OfferedPS: 100, AchievedPS: 87.5, Late: 50, Dropped: 50,
		LagMs: analyze.RTStats{Median: 0.5, P99: 1000}}}
	fs, _ := facts(s)
	last := fs[len(fs)-1]
	if last.Label != "Open model" || !strings.Contains(last.Value, "achieved 87.5") || !strings.Contains(last.Value, "dropped 50") {
		t.Errorf("last fact %+v, want the open model's", last)
	}
	s.Open = nil
	for _, f := range func() []fact { fs, _ := facts(s); return fs }() {
		if f.Label == "Open model" {
			t.Error("a closed-loop run has an open-model line")
		}
	}
}
