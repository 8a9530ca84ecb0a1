package e2e

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/report"
)

// TestEngineDemoHTTPKneeAtC runs the demo (C = 8 workers × S = 400 ms)
// through the built-in HTTP client: no process start is part of a call, so
// the knee of the asymptotic-bounds model, X*·R0, is at C within 5% (with
// an exec client it sits higher by what starting the client adds: see
// TestPredictOnDemo).
func TestEngineDemoHTTPKneeAtC(t *testing.T) {
	const c = 8.0
	out := filepath.Join(t.TempDir(), "demo")
	start := time.Now()
	if r := diperf(t, 2*time.Minute, "demo", "--client", "http", "--out", out, "--tester-duration", "20s"); r.code != 0 {
		t.Fatalf("demo --client http: exit %d\n%s", r.code, r.stderr)
	}
	t.Logf("demo --client http took %v", time.Since(start).Round(time.Second))
	m := readModel(t, out)
	if m.Bounds == nil {
		t.Fatal("model.json has no bounds fit")
	}
	knee := m.Bounds.KneeLoad
	t.Logf("knee at a load of %.2f (R0 %s ms, plateau %.2f calls/s)", knee, describe(m.Bounds, "r0"), m.Bounds.Plateau)
	if math.Abs(knee-c) > 0.05*c {
		t.Errorf("knee at a load of %.2f, want C = %.0f ± 5%%", knee, c)
	}
	if r0 := m.Bounds.R0Ms; r0 < 400 || r0 > 420 {
		t.Errorf("light-load response time %.1f ms, want the 400 ms service time plus at most 20 ms", r0)
	}
}

// TestEngineOpenModelRun runs the open model for real: 200 calls/s over 2
// testers (100 each, 20 clients each) for 8 s through the built-in HTTP
// client against a target that serves 400 calls/s. Every call is made
// (none dropped), the achieved rate is the offered one within 1%, and
// samples.parquet holds each call's intended start.
func TestEngineOpenModelRun(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 8, 20*time.Millisecond)
	out, s := engineRun(t, time.Minute, "name: open\ntarget: "+url+"\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 2s\n"+
		"schedule:\n  testers: 2\n  tester_start_interval: 0s\n  tester_duration: 8s\n  clients_per_tester: 20\n  rate: 200\n")
	o := openModelOf(t, s)
	t.Logf("open model: %+v", *o)
	if o.Intended < 1580 || o.Intended > 1620 || o.Dropped != 0 || s.Samples.Failed != 0 {
		t.Errorf("%d calls due (want 1600 ± 20: 200/s for 8 s), %d dropped, %d failed; want none", o.Intended, o.Dropped, s.Samples.Failed)
	}
	if math.Abs(o.AchievedPS-o.OfferedPS) > 0.01*o.OfferedPS {
		t.Errorf("achieved %.2f calls/s, offered %.2f: want within 1%%", o.AchievedPS, o.OfferedPS)
	}
	got := duckdb(t, out, "select count(*), count(*) filter (where intended_ns > 0 and intended_ns <= start_ns + 1000000), "+
		"count(*) filter (where first_byte_ns > 0) from SAMPLES")
	want := "(" + itoa(o.Intended) + ", " + itoa(o.Intended) + ", " + itoa(o.Intended) + ")"
	if got != want {
		t.Errorf("duckdb: (calls, with an intended start at most 1 ms after their start, with a first-byte time) = %s, want %s", got, want)
	}
	if page := reportGraph(t, out, report.OpenRateGraphID); !strings.Contains(page, "from intended start") {
		t.Errorf("report.html does not say response times count from intended start")
	}
}

// engineRun runs the experiment body, within limit, and returns its run
// directory and summary.
func engineRun(t *testing.T, limit time.Duration, body string) (string, *analyze.Summary) {
	t.Helper()
	exp := writeExperiment(t, body)
	out := filepath.Join(t.TempDir(), "run")
	if r := diperf(t, limit, "run", exp, "--out", out); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	return out, readSummary(t, out)
}

// openModelOf returns the open model's summary of s, which must have one.
func openModelOf(t *testing.T, s *analyze.Summary) *analyze.OpenModel {
	t.Helper()
	if s.Open == nil {
		t.Fatal("summary.json has no open_model")
	}
	return s.Open
}

// reportGraph checks that the run in out drew the graph id, in
// report.html and as id.svg, and returns report.html.
func reportGraph(t *testing.T, out, id string) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<svg id="`+id+`"`) {
		t.Errorf("report.html has no graph %s", id)
	}
	if _, err := os.Stat(filepath.Join(out, id+".svg")); err != nil {
		t.Errorf("the run has no %s.svg: %v", id, err)
	}
	return string(page)
}

// TestEngineExtrasBecomeColumns runs an exec client that reports extras on
// fd 3: each key becomes a column x_<key> of samples.parquet, and a series
// of summary.json and quanta.csv.
func TestEngineExtrasBecomeColumns(t *testing.T) {
	t.Parallel()
	out, s := engineRun(t, time.Minute, "name: extras\nclient:\n  exec: [sh, -c, \"echo mb=1.5 files=2 >&3\"]\n"+
		"schedule:\n  testers: 2\n  tester_start_interval: 0s\n  tester_duration: 2s\n  client_interval: 100ms\n")
	got := duckdb(t, out, "select count(*), sum(x_mb), sum(x_files) from SAMPLES")
	n := s.Samples.Total
	if want := "(" + itoa(n) + ", " + strconv.FormatFloat(1.5*float64(n), 'f', 1, 64) + ", " + strconv.FormatFloat(2*float64(n), 'f', 1, 64) + ")"; n < 10 || got != want {
		t.Errorf("duckdb: (calls, sum of x_mb, sum of x_files) = %s, want %s", got, want)
	}
	// They are series in the analysis too.
	if mb := s.Extras["mb"]; mb.Calls != n || mb.Mean != 1.5 || mb.Sum != 1.5*float64(n) {
		t.Errorf("summary.json extras mb: %+v, want %d calls of 1.5", mb, n)
	}
	readCSV(t, filepath.Join(out, "quanta.csv"), "x_mb_per_s", "x_mb_mean", "x_files_per_s", "x_files_mean")
	reportGraph(t, out, report.ExtrasGraphID) // and the report draws them
}

// TestEngineOpenModelSeesStall runs the open model at 100 calls/s with 50
// clients against a target that stalls for 2 s, 4 s after it starts: the
// calls due in the stall wait for a client (every one is stuck in the
// target), start late and are counted late, and their response times,
// measured from their intended starts, show the stall, as wrk2 would,
// instead of the target's 10 ms service time.
func TestEngineOpenModelSeesStall(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 8, 10*time.Millisecond, "--pause-at", "4s", "--pause-for", "2s")
	out, s := engineRun(t, time.Minute, "name: stall\ntarget: "+url+"\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 10s\n"+
		"schedule:\n  testers: 1\n  tester_duration: 10s\n  clients_per_tester: 50\n  rate: 100\n")
	o := openModelOf(t, s)
	t.Logf("open model: %+v; response time ms: %+v", *o, s.ResponseTimeMs)
	// 2 s of calls due in the stall: 200, of which 50 reach a client at
	// once and are stuck with it; the other 150 start late.
	if o.Late < 100 || o.Dropped != 0 || s.Samples.Failed != 0 {
		t.Errorf("%d late (want about 150: the calls due in the stall that found no client), %d dropped, %d failed",
			o.Late, o.Dropped, s.Samples.Failed)
	}
	if o.LagMs.Max < 1000 {
		t.Errorf("the longest wait for a client is %.0f ms, want more than 1 s of the 2 s stall", o.LagMs.Max)
	}
	if rt := s.ResponseTimeMs; rt.Max < 1500 {
		t.Errorf("response time max %.0f ms: the stall is hidden (want close to 2 s, measured from intended starts)", rt.Max)
	}
	q := readCSV(t, filepath.Join(out, "quanta.csv"), "late", "offered_per_s", "achieved_per_s")
	var late int
	for _, r := range q.rows {
		late += r.int(t, "late")
	}
	if late != o.Late {
		t.Errorf("quanta.csv counts %d late calls, summary.json %d", late, o.Late)
	}
}

// TestEngineThousandClients runs one tester with 1,000 clients of the
// built-in HTTP client (one event loop, a keep-alive connection each)
// against the demo target, each calling once a second: clients.csv has a
// row per client and the fairness of summary.json is over the 1,000.
func TestEngineThousandClients(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 200, 20*time.Millisecond)
	out, s := engineRun(t, 2*time.Minute, "name: thousand\ntarget: "+url+"\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 10s\n"+
		"schedule:\n  testers: 1\n  tester_duration: 6s\n  client_interval: 1s\n  clients_per_tester: 1000\n")
	t.Logf("samples %+v, fairness %+v", s.Samples, s.Fairness)
	if s.Samples.Failed != 0 || s.Samples.OK < 5000 {
		t.Errorf("samples %+v: want at least 5 calls of each of 1,000 clients, none failed", s.Samples)
	}
	if s.Fairness.Clients != 1000 || s.Fairness.Jain < 0.9 {
		t.Errorf("fairness %+v: want it over 1,000 clients, near 1 (each client calls once a second)", s.Fairness)
	}
	c := readCSV(t, filepath.Join(out, "clients.csv"), "client", "ok", "utilization")
	seen := map[int]bool{}
	for _, r := range c.rows {
		seen[r.int(t, "client")] = true
		if r.int(t, "ok") < 4 {
			t.Errorf("clients.csv line %d: client %s made %d calls, want about 6", r.line, r.str(t, "client"), r.int(t, "ok"))
		}
	}
	if len(seen) != 1000 {
		t.Errorf("clients.csv has %d distinct clients, want 1,000", len(seen))
	}
}
