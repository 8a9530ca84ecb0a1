package pipeline

import (
	"fmt"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/threshold"
)

// summaryFile is summary.json: the analysis' summary, and beside it the
// experiment's thresholds as checked on it (threshold sits above analyze,
// so the summary itself cannot hold them).
type summaryFile struct {
	*analyze.Summary
	Thresholds []threshold.Result `json:"thresholds,omitempty"`
}

// ReadThresholds reads the thresholds' results of dir's last analysis
// from its summary.json (none when the experiment has none).
func ReadThresholds(dir string) ([]threshold.Result, error) {
	var s struct {
		Thresholds []threshold.Result `json:"thresholds"`
	}
	if err := rundir.ReadJSON(dir, rundir.Summary, &s); err != nil {
		return nil, fmt.Errorf("reading the run's thresholds: %w", err)
	}
	return s.Thresholds, nil
}
