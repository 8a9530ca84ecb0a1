package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/model"
)

// TestPredictBeyondAnUnsaturatedRun: `diperf predict` beyond the highest
// load of a run that did not saturate (a USL of 2.5 calls/s per call in
// flight fitted to loads 0.5 to 4, no plateau shown) says the capacity is
// unknown and gives lower bounds only, in text and JSON; inside the range
// it gives its 95% interval.
func TestPredictBeyondAnUnsaturatedRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := &model.Model{Chosen: model.ModelUSL,
		USL:        model.USL{Lambda: 2.5, R2: 0.9, Points: 20, MinLoad: 0.5, MaxLoad: 4},
		Saturation: &model.Saturation{Reason: "no plateau"},
		Bootstrap:  model.Bootstrap{Resamples: 2, Params: []model.Params{{2.4, 0, 0}, {2.6, 0, 0}}}}
	if err := model.WriteFile(dir, m); err != nil {
		t.Fatal(err)
	}
	code, out := runMain(t, "predict", dir, "--load", "8")
	if code != 0 || !strings.Contains(out, "throughput at least 9.6 calls/s") || !strings.Contains(out, "capacity unknown: the run did not saturate within the tested range (load ≤ 4)") ||
		strings.Contains(out, "95% interval") {
		t.Errorf("predict --load 8: exit %d\n%s\nwant a lower bound of 9.6 calls/s (2.4 x 4) and the capacity unknown", code, out)
	}
	code, out = runMain(t, "predict", dir, "--load", "8", "--json")
	var p struct {
		Bound        string              `json:"bound"`
		Throughput   map[string]*float64 `json:"throughput"`
		Extrapolated bool                `json:"extrapolated"`
		Note         string              `json:"note"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil || code != 0 {
		t.Fatalf("predict --json: exit %d, %v\n%s", code, err, out)
	}
	x := p.Throughput
	if p.Bound != model.BoundLower || x["low"] == nil || *x["low"] != 9.6 || x["high"] != nil || x["value"] != nil || !p.Extrapolated ||
		!strings.Contains(p.Note, "capacity unknown") {
		t.Errorf("predict --load 8 --json: %s\nwant bound lower, low 9.6, value and high null, extrapolated, a note", out)
	}
	if code, out = runMain(t, "predict", dir, "--load", "2"); code != 0 || !strings.Contains(out, "throughput 5.0 calls/s (95% interval 4.8–5.2)") {
		t.Errorf("predict --load 2 (inside the range): exit %d\n%s", code, out)
	}
}
