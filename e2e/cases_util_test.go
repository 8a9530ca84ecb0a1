package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/pipeline"
)

// caseTimeout bounds one shortened case script, install included.
const caseTimeout = 4 * time.Minute

// runCase runs examples/cases/NAME/run.sh shortened (CASE_SHORT=1) with
// the diperf under test first on PATH and its run directory
// (CASE_OUT) under the test's temporary directory; env is added to the
// environment. The script must exit 0; it returns the run directory and
// the script's output (stdout and stderr).
func runCase(t *testing.T, name string, env ...string) (dir, out string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "examples", "cases", name, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, script)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) } // its trap stops what it started
	cmd.WaitDelay = 30 * time.Second
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CASE_SHORT=1", "CASE_OUT="+dir)
	cmd.Env = append(cmd.Env, env...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("case %s did not finish within %v:\n%s", name, caseTimeout, b.String())
	}
	if err != nil {
		t.Fatalf("case %s: %v\n%s", name, err, b.String())
	}
	return dir, b.String()
}

// caseValidate holds run dir's client view against the server's counter
// of endpoint, per window of at least minCalls calls, within tolerance %,
// and fails the test when a window, the cumulative gap or the totals are
// beyond their allowance, or nothing was compared.
func caseValidate(t *testing.T, dir, endpoint, counter string, tolerance float64, minCalls int) *monitor.Validation {
	t.Helper()
	chk, err := pipeline.Validate(dir, pipeline.Options{}, pipeline.ValidateOptions{
		Counter: counter, Endpoint: endpoint, Tolerance: tolerance, MinCalls: minCalls})
	if err != nil {
		t.Fatalf("validate %s %s: %v", endpoint, counter, err)
	}
	v := &chk.Validation
	if v.Checked == 0 {
		t.Fatalf("validate %s %s: nothing compared (%d calls in %d scrape intervals)", endpoint, counter, v.Calls, v.Scrapes)
	}
	if v.Beyond > 0 || v.Cum.Beyond > 0 {
		t.Errorf("validate %s %s: %d of %d windows beyond their allowance, cumulative gap %+.0f calls (%.2f%%, allowed %.1f)",
			endpoint, counter, v.Beyond, v.Checked, v.Cum.Worst.Calls, v.Cum.Worst.Pct, v.Cum.Worst.Allowed)
	}
	return v
}
