package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A short demo (about 80 calls per 1 s scrape interval, fewer than the
// default --min-calls) validated with the defaults compares at least one
// window, says what the cumulative gap was, and exits 0: the scrape
// intervals are merged into windows of 100 calls, not left unchecked.
func TestValidateDemoCompares(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "demo")
	r := diperf(t, time.Minute, "demo", "--testers", "4", "--tester-duration", "3s", "--tester-start-interval", "100ms",
		"--workers", "4", "--service-time", "50ms", "--client", "http", "--out", out, "--ui", "off")
	if r.code != 0 {
		t.Fatalf("demo exited %d:\n%s", r.code, r.stderr)
	}
	v := diperf(t, time.Minute, "validate", out, "--counter", "diperf_target_served_total")
	t.Logf("diperf validate: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	m := validateLine.FindStringSubmatch(v.stdout)
	if m == nil {
		t.Fatal("no summary line in validate's output")
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 || v.code != 0 {
		t.Errorf("%d windows compared, exit %d; want at least 1, exit 0", n, v.code)
	}
	if !strings.Contains(v.stdout, "cumulative gap (server - clients): final ") {
		t.Error("validate did not report the cumulative gap")
	}
}
