package analyze

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestExtrasOverflowSummaryJSON: a client may report any finite value;
// values whose sum overflows float64 leave that figure unknown (null in
// summary.json, read back as NaN) and the summary is still written.
func TestExtrasOverflowSummaryJSON(t *testing.T) {
	t.Parallel()
	calls := []sample.Call{
		withExtras(call(0, 0.1, 0.5, sample.OK), "mb", 1.5e308, "files", 1.0),
		withExtras(call(1, 0.2, 0.9, sample.OK), "mb", 1.5e308, "files", 2.0),
	}
	r := mustCompute(t, 500*time.Millisecond, []Tester{tester(0, 0, 4), tester(1, 0, 4)}, calls)
	b, err := json.Marshal(r.Summary)
	if err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	if strings.Contains(string(b), "NaN") || strings.Contains(string(b), "Inf") {
		t.Fatalf("summary.json holds NaN or Inf: %s", b)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("reading summary.json back: %v", err)
	}
	mb, files := back.Extras["mb"], back.Extras["files"]
	if mb.Calls != 2 || !math.IsNaN(mb.Sum) || !math.IsNaN(mb.Mean) || mb.Max != 1.5e308 {
		t.Errorf("mb read back: %+v; want 2 calls, sum and mean unknown (NaN), max 1.5e308", mb)
	}
	if files.Sum != 3 || files.Mean != 1.5 {
		t.Errorf("files read back: %+v", files)
	}
}
