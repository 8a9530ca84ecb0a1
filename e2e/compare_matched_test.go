package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two short real demo runs, B's service time 1.3× A's (40 ms against 52 ms,
// 8 workers, 6 closed-loop HTTP testers started 200 ms apart, never
// saturated): each tester's throughput is 1/RT, so B serves 1 − 40/52 =
// 23.1% fewer calls a second at every load (less when the client's own
// overhead adds to both response times). compare must find the drop,
// though a third of each run is ramp-up.
func TestCompareFindsSlowerServiceInShortRuns(t *testing.T) {
	tmp := t.TempDir()
	dirs := map[string]string{}
	for name, st := range map[string]string{"a": "40ms", "b": "52ms"} {
		dirs[name] = filepath.Join(tmp, name)
		r := diperf(t, time.Minute, "demo", "--client", "http", "--testers", "6", "--tester-start-interval", "200ms",
			"--tester-duration", "2500ms", "--workers", "8", "--service-time", st, "--out", dirs[name], "--ui", "off")
		if r.code != 0 {
			t.Fatalf("demo %s exited %d\n%s", st, r.code, r.stderr)
		}
	}
	r := diperf(t, time.Minute, "compare", dirs["a"], dirs["b"], "--quantum", "100ms", "--json", "--fail-if", "slower")
	if r.code != 3 {
		t.Errorf("compare --fail-if slower exited %d, want 3\n%s", r.code, r.stderr)
	}
	var c struct {
		Metrics []struct {
			Name        string   `json:"name"`
			RelPct      *float64 `json:"rel_pct"`
			Significant *bool    `json:"significant"`
			MDCPct      *float64 `json:"mdc_pct"`
		} `json:"metrics"`
		Verdicts struct{ Throughput string } `json:"verdicts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, r.stdout)
	}
	if !strings.HasPrefix(c.Verdicts.Throughput, "B has lower throughput at matched load") {
		t.Errorf("throughput verdict %q, want the drop found", c.Verdicts.Throughput)
	}
	for _, m := range c.Metrics {
		if m.Name != "throughput at matched load" {
			continue
		}
		if m.RelPct == nil || m.Significant == nil || !*m.Significant || m.MDCPct == nil {
			t.Fatalf("matched throughput %+v: want a significant change and its detectable size", m)
		}
		// At most the 23.1% of the service times, less by the client's
		// overhead; the runs' noise may add a few percent either way.
		if *m.RelPct < -32 || *m.RelPct > -8 {
			t.Errorf("throughput at matched load changed %+.1f%%, want about −23%% (−32%% to −8%%)", *m.RelPct)
		}
		if strings.Contains(r.stderr, "lower throughput") {
			return
		}
		t.Errorf("the regression message lacks the throughput drop:\n%s", r.stderr)
		return
	}
	t.Errorf("no throughput at matched load in %s", r.stdout)
}
