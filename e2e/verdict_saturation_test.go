package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVerdictNotSaturated runs the demo at a load far below its target's
// capacity (20 workers of 100 ms: 200 calls/s, saturating at a load of
// 20) with at most 6 testers of one call at a time: the service cannot
// saturate, so the verdict must be "not saturated within the tested
// range" with a capacity bound no higher than the truth, in summary.json,
// the printed summary and the report.
func TestVerdictNotSaturated(t *testing.T) {
	t.Parallel()
	const capacity = 20 / 0.1
	out := filepath.Join(t.TempDir(), "demo")
	r := diperf(t, time.Minute, "demo", "--out", out, "--client", "http", "--testers", "6",
		"--tester-start-interval", "500ms", "--tester-duration", "4s", "--workers", "20", "--service-time", "100ms")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	sat := saturationOf(t, out)
	t.Logf("saturation %+v", sat)
	if sat.Verdict != "not_saturated" || sat.Saturated {
		t.Fatalf("verdict %q (saturated %v), want not_saturated: 6 calls at a time against 20 workers", sat.Verdict,
			sat.Saturated)
	}
	// 6 calls in flight of at least 100 ms each make at most 60 calls/s.
	if sat.CapacityAtLeast <= 0 || sat.CapacityAtLeast > 6/0.1*1.1 || sat.CapacityAtLeast > capacity {
		t.Errorf("capacity_at_least %.1f, want in (0, 66]: 6 calls in flight of 100 ms", sat.CapacityAtLeast)
	}
	words := "not saturated within the tested range (capacity ≥ "
	if !strings.Contains(r.stdout, "saturation     "+words) {
		t.Errorf("the printed summary does not say %q:\n%s", words, r.stdout)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(page), words) {
		t.Errorf("report.html does not say %q (%v)", words, err)
	}
}

// verdictJSON is the saturation of summary.json, read by its keys.
type verdictJSON struct {
	Saturated       bool    `json:"saturated"`
	Verdict         string  `json:"verdict"`
	Evidence        string  `json:"evidence"`
	Reason          string  `json:"reason"`
	CapacityAtLeast float64 `json:"capacity_at_least"`
}

// saturationOf reads the saturation verdict of the run in dir.
func saturationOf(t *testing.T, dir string) verdictJSON {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Saturation verdictJSON `json:"saturation"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Saturation
}
