package e2e

import (
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// numRowSeven is the experiment of issue 8's row 7: one tester calling a
// client that sleeps 200 ms every 500 ms for 6 s completes the same number
// of calls every quantum, a fit that a model matches exactly (it made
// model.json's BIC −Inf, and 1 run in 4 exit 1 without model.json).
const numRowSeven = `name: row7
client:
  exec: [/bin/sleep, "0.2"]
schedule:
  testers: 1
  tester_duration: 6s
  client_interval: 0.5s
`

// numRounds is how many times TestRowSevenPerfectFit runs the row-7
// experiment: DIPERF_ROW7_ROUNDS, default 3 (the issue asks for 100
// before it is resolved).
func numRounds(t *testing.T) int {
	t.Helper()
	v := os.Getenv("DIPERF_ROW7_ROUNDS")
	if v == "" {
		return 3
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("DIPERF_ROW7_ROUNDS=%q: want a positive number", v)
	}
	return n
}

// TestRowSevenPerfectFit runs the row-7 experiment numRounds times: each
// run exits 0 with model.json and report.html, and no NaN or Inf in any
// JSON or CSV.
func TestRowSevenPerfectFit(t *testing.T) {
	t.Parallel()
	var ok atomic.Int64
	rounds := numRounds(t)
	t.Run("rounds", func(t *testing.T) {
		for i := range rounds {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				out := numRun(t, numRowSeven)
				if _, err := os.Stat(filepath.Join(out, "model.json")); err != nil {
					t.Errorf("no model.json: %v", err)
				}
				if !t.Failed() {
					ok.Add(1)
				}
			})
		}
	})
	t.Logf("%d of %d runs of the row-7 experiment exited 0 with model.json, report.html and only finite numbers", ok.Load(), rounds)
}

// TestNumericEdgeRuns runs the edges of what the analysis divides and
// takes logarithms of: each exits 0 (1 when no call succeeded) with a
// complete run directory, a model.json or the report's reason for none,
// and only finite numbers.
func TestNumericEdgeRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, exp string
		check     func(t *testing.T, out string)
		code      int // the run's exit code: 1 when no call succeeded
	}{
		{"every call fails", `name: failing
client:
  exec: ["false"]
schedule:
  testers: 2
  tester_start_interval: 200ms
  tester_duration: 2s
  client_interval: 100ms
`, func(t *testing.T, out string) {
			s := readSummary(t, out)
			if s.Samples.OK != 0 || s.Samples.Failed == 0 {
				t.Errorf("samples %+v, want none successful and some failed", s.Samples)
			}
		}, 1},
		// The quantum is 20 s, not 2 s: quanta count from the run's start,
		// and on a busy machine the tester's 400 ms of calls began 1.6 s
		// after it and fell into a second quantum (CI-like full e2e run).
		{"shorter than one quantum", `name: short
client:
  exec: [/bin/sleep, "0.05"]
schedule:
  testers: 1
  tester_duration: 400ms
  client_interval: 0s
analysis:
  quantum: 20s
`, func(t *testing.T, out string) {
			if rows := readCSV(t, filepath.Join(out, "quanta.csv"), "t_s").rows; len(rows) != 1 {
				t.Errorf("%d quanta, want 1", len(rows))
			}
		}, 0},
		{"a single call", `name: single
client:
  exec: [/bin/sleep, "0.1"]
schedule:
  testers: 1
  tester_duration: 1s
  client_interval: 30s
`, func(t *testing.T, out string) {
			if s := readSummary(t, out); s.Samples.Total != 1 || s.Samples.OK != 1 {
				t.Errorf("samples %+v, want a single successful call", s.Samples)
			}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := numRunCode(t, tt.exp, tt.code)
			tt.check(t, out)
		})
	}
}

// numRun runs experiment exp, and checks that it exits 0 with a complete
// run directory (a model.json, or the report saying why there is none)
// whose JSON and CSV files hold only finite numbers. It returns the run
// directory.
func numRun(t *testing.T, exp string) string {
	t.Helper()
	return numRunCode(t, exp, 0)
}

// numRunCode is numRun for a run that exits with code.
func numRunCode(t *testing.T, exp string, code int) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, 2*time.Minute, "run", writeExperiment(t, exp), "--out", out)
	if r.code != code {
		t.Fatalf("exit %d, want %d\n%s", r.code, code, r.stderr)
	}
	checkRunDir(t, out)
	if _, err := os.Stat(filepath.Join(out, "model.json")); err != nil {
		report, rerr := os.ReadFile(filepath.Join(out, "report.html"))
		if rerr != nil || !strings.Contains(string(report), "No model was fitted") {
			t.Errorf("no model.json (%v), and the report does not say why", err)
		}
	}
	numCheckFinite(t, out)
	return out
}

// numCheckFinite fails t if a JSON, JSON lines or CSV file of dir holds a
// value that is not a finite number: NaN or ±Inf, in any spelling.
func numCheckFinite(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".csv") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		checked++
		fields := strings.FieldsFunc(string(b), func(r rune) bool { return strings.ContainsRune(",\":[]{} \n\r\t;=", r) })
		for _, f := range fields {
			if v, err := strconv.ParseFloat(f, 64); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				t.Errorf("%s holds %q", name, f)
				break
			}
		}
	}
	if checked < 4 { // quanta.csv, clients.csv, summary.json, testers.csv at least
		t.Errorf("only %d JSON and CSV files in %s", checked, dir)
	}
}

// TestTimeServerIdleConnectionsDoNotStopTesters is issue 8's row 8: while
// a run with sync over TCP goes, 511 connections to the controller's time
// server are held open and send nothing (each reopened half a second after
// the server closes it); the run completes, every tester runs and syncs,
// and none fails.
func TestTimeServerIdleConnectionsDoNotStopTesters(t *testing.T) {
	t.Parallel()
	const testers = 5
	exp := writeExperiment(t, `name: hogged
client:
  exec: [sleep, "0.05"]
schedule:
  testers: 5
  tester_start_interval: 500ms
  tester_duration: 4s
  client_interval: 0s
sync:
  transport: tcp
  interval: 1s
`)
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	run := hardenStartRun(t, mark, "run", exp, "--out", out)
	addr, _ := waitEvent(t, out, "time-server", -1)["detail"].(string)
	if addr == "" {
		t.Fatal("the time-server event names no address")
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var hog numHogCounts
	for range 511 {
		wg.Go(func() { numHog(addr, stop, &hog) })
	}
	code := run.wait(t, time.Minute)
	close(stop)
	wg.Wait()
	t.Logf("%d idle connections opened, at most %d open at once", hog.opened.Load(), hog.peak.Load())
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	if hog.opened.Load() < 511 {
		t.Errorf("only %d idle connections were opened", hog.opened.Load())
	}
	rows := readTesters(t, out)
	if len(rows) != testers {
		t.Fatalf("%d testers in testers.csv, want %d", len(rows), testers)
	}
	for _, row := range rows {
		if row.str(t, "failed") != "false" || row.int(t, "samples_received") == 0 || row.int(t, "syncs") < 2 {
			t.Errorf("tester %s: failed %s (%s), %d samples, %d syncs", row.str(t, "index"), row.str(t, "failed"),
				row.str(t, "failure_reason"), row.int(t, "samples_received"), row.int(t, "syncs"))
		}
	}
	checkRunDir(t, out)
	hardenNothingLost(t, out, mark, testers)
}

// numHogCounts counts the idle connections of numHog: opened in all, open
// now, and the most open at once.
type numHogCounts struct {
	opened, open, peak atomic.Int64
}

// numHog holds one idle connection to addr until stop, reopening it half a
// second after the server closes it.
func numHog(addr string, stop <-chan struct{}, n *numHogCounts) {
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			n.opened.Add(1)
			open := n.open.Add(1)
			for p := n.peak.Load(); open > p && !n.peak.CompareAndSwap(p, open); p = n.peak.Load() {
			}
			closed := make(chan struct{})
			go func() { _, _ = c.Read(make([]byte, 1)); close(closed) }()
			select {
			case <-stop:
			case <-closed:
			}
			c.Close()
			n.open.Add(-1)
		}
		select {
		case <-stop:
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}
