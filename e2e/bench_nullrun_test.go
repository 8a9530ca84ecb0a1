package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nullRunExperiment is one tester whose client always fails, for 1 s.
const nullRunExperiment = `name: nullrun
client:
  exec: ["false"]
  timeout: 2s
schedule:
  testers: 1
  tester_duration: 1s
  client_interval: 50ms
`

// TestRunHasNoNullClient: `diperf run` runs the experiment's client
// whatever its environment says (the benchmark's old variable
// DIPERF_BENCH_NULL_CLIENT=1 once swapped in the null client): every
// call of `false` fails, exit 1. The null client is the benchmark's
// hidden `diperf bench controller-run`, which says so and whose calls
// all succeed.
func TestRunHasNoNullClient(t *testing.T) {
	exp := writeExperiment(t, nullRunExperiment)
	out := filepath.Join(t.TempDir(), "run")
	r := diperfEnv(t, time.Minute, []string{"DIPERF_BENCH_NULL_CLIENT=1"}, "run", exp, "--out", out, "--ui", "off")
	if r.code != 1 || strings.Contains(r.stderr, "null client") {
		t.Errorf("diperf run with DIPERF_BENCH_NULL_CLIENT=1: exit %d, want 1 (the experiment's client, every call failed)\n%s", r.code, r.stderr)
	}
	if s := readSummary(t, out); s.Samples.OK != 0 || s.Samples.Failed == 0 {
		t.Errorf("diperf run: %d OK, %d failed; want every call failed", s.Samples.OK, s.Samples.Failed)
	}

	out = filepath.Join(t.TempDir(), "run")
	r = diperf(t, time.Minute, "bench", "controller-run", exp, "--out", out, "--ui", "off")
	if r.code != 0 || !strings.Contains(r.stderr, "the testers run the null client") {
		t.Fatalf("diperf bench controller-run: exit %d, want 0 and the null client said\n%s", r.code, r.stderr)
	}
	if s := readSummary(t, out); s.Samples.OK == 0 || s.Samples.Failed != 0 {
		t.Errorf("diperf bench controller-run: %d OK, %d failed; want every call OK (the null client)", s.Samples.OK, s.Samples.Failed)
	}
}
