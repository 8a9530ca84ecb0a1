package controller

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/threshold"
	"github.com/diperf/diperf/internal/transport"
)

// TestOutcomeAnalysis: Run returns what its analysis found, exactly as it
// wrote it: summary.json's summary and thresholds (one met, one failed)
// and the experiment's name, so that a caller reads none of them back.
func TestOutcomeAnalysis(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	exp := testExperiment(t, 1, 300*time.Millisecond)
	exp.Name = "outcome-analysis"
	exp.Thresholds = []experiment.Threshold{{Check: "error_rate < 1%"}, {Check: "p99_ms < 0.001"}}
	out, err := Run(context.Background(), inprocOptions(exp, dir, newInproc(transport.NewMemory())))
	if err != nil {
		t.Fatal(err)
	}
	got := out.Analysis
	if got == nil || got.Analysis == nil {
		t.Fatalf("outcome %+v: no analysis", out)
	}
	if got.Name != exp.Name {
		t.Errorf("name %q, want %q", got.Name, exp.Name)
	}
	s, err := pipeline.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := outcomeJSON(t, &got.Analysis.Summary), outcomeJSON(t, s); a != b {
		t.Errorf("summary returned\n%s\nsummary.json\n%s", a, b)
	}
	if got.Analysis.Summary.Samples.OK == 0 || uint64(got.Analysis.Summary.Samples.OK) != out.Samples {
		t.Errorf("summary OK %d, outcome samples %d: want every sample analysed", got.Analysis.Summary.Samples.OK, out.Samples)
	}
	rs, err := pipeline.ReadThresholds(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := outcomeJSON(t, got.Thresholds), outcomeJSON(t, rs); a != b || len(rs) != 2 || threshold.Failures(got.Thresholds) != 1 {
		t.Errorf("thresholds returned %s, summary.json's %s: want both, one failed", a, b)
	}
}

// outcomeJSON is v encoded as JSON.
func outcomeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
