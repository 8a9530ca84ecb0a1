package directory

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMetricsExposition writes results through the API, reads /metrics and
// checks the latest figures and the format (line by line, and with
// promtool when it is installed).
func TestMetricsExposition(t *testing.T) {
	c, clk, base := testServer(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	registerAll(t, c, "b", `we"ird\name`) // results are between registered sensors
	clk.Add(time.Minute)                  // and these two are stale: one live below
	if _, err := c.Register(ctx, reg("a", "local")); err != nil {
		t.Fatal(err)
	}
	for _, r := range []Result{
		bwResult("a", "b", t0, 1e6), bwResult("a", "b", t0.Add(time.Minute), 2.5e7),
		{Src: `we"ird\name`, Dst: "b", Kind: KindLatency, LatencyP50Ms: 0.25, LatencyP90Ms: 0.5, LatencyP99Ms: 1.5,
			TestTimeS: 5, MeasuredAt: t0, Busy: 3, Missed: 4},
	} {
		if _, err := c.AddResult(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	resp := get(t, base+"/metrics")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("Content-Type %q", ct)
	}
	body, _ := io.ReadAll(resp.Body)
	text := string(body)
	for _, want := range []string{
		`diperf_net_bandwidth_bps{src="a",dst="b"} 2.5e+07`,
		`diperf_net_bandwidth_after_slow_start_bps{src="a",dst="b"} 2.55e+07`,
		`diperf_net_latency_ms{src="we\"ird\\name",dst="b",quantile="0.99"} 1.5`,
		`diperf_net_measured_at_seconds{src="a",dst="b",kind="bandwidth"} 1.77232326e+09`,
		`diperf_sensor_busy_tests_total{sensor="we\"ird\\name"} 3`,
		`diperf_directory_sensors{state="live"} 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("/metrics lacks %s:\n%s", want, text)
		}
	}
	checkExposition(t, text)
	if path, err := exec.LookPath("promtool"); err == nil {
		cmd := exec.Command(path, "check", "metrics")
		cmd.Stdin = bytes.NewReader(body)
		out, err := cmd.CombinedOutput()
		checkPromtool(t, err, string(out), text)
	} else {
		t.Log("promtool not installed (Debian: prometheus); the line-by-line check ran alone")
	}
}

// checkPromtool accepts promtool's verdict when the exposition parses
// (exit 0), or parses with only the two naming lints the names choose
// to take (exit 3): units as in the API's JSON fields (_bps, _ms), and a
// quantile label on a gauge (the latest test's quantiles, not a summary).
func checkPromtool(t *testing.T, err error, out, text string) {
	t.Helper()
	if err == nil {
		return
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("promtool check metrics: %v (not valid exposition format)\n%s\n%s", err, out, text)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(l, "metric names should not contain abbreviated units") &&
			!strings.HasSuffix(l, `non-summary metrics should not have "quantile" label`) {
			t.Errorf("promtool check metrics: %s", l)
		}
	}
}

var (
	helpLine   = regexp.MustCompile(`^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$`)
	typeLine   = regexp.MustCompile(`^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter)$`)
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*\} (\S+)$`)
)

// checkExposition checks the text format: HELP then TYPE before a
// family's samples, each family once, samples named as their family.
func checkExposition(t *testing.T, text string) {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Fatal("exposition does not end with a newline")
	}
	seen := map[string]bool{}
	family := ""
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case helpLine.MatchString(l):
			family = helpLine.FindStringSubmatch(l)[1]
			if seen[family] {
				t.Errorf("line %d: family %s twice", i+1, family)
			}
			seen[family] = true
		case typeLine.MatchString(l):
			if n := typeLine.FindStringSubmatch(l)[1]; n != family {
				t.Errorf("line %d: TYPE of %s after HELP of %s", i+1, n, family)
			}
		case sampleLine.MatchString(l):
			if n := sampleLine.FindStringSubmatch(l)[1]; n != family {
				t.Errorf("line %d: sample %s in family %s", i+1, n, family)
			}
		default:
			t.Errorf("line %d is not exposition format: %q", i+1, l)
		}
	}
}
