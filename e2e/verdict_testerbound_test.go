package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// testerBoundExp is two testers calling a 100 ms sleep for 3 s, with a
// threshold on their CPU.
const testerBoundExp = `name: testerbound
client:
  exec: [/bin/sleep, "0.1"]
schedule:
  testers: 2
  tester_duration: 3s
thresholds:
  - tester_cpu_pct < 80
`

// TestTesterBoundAnalyze: a real run's directory given the health of two
// testers starved of CPU (97% of what they may use in every second of
// their lives) analyzes, with the real binary, to quanta.csv's
// tester_bound naming them in every quantum they ran in (both where
// both ran), summary.json
// counting those quanta, and tester_cpu_pct < 80 failed at 97% (exit 3).
func TestTesterBoundAnalyze(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	if r := diperf(t, time.Minute, "run", writeExperiment(t, testerBoundExp), "--out", out); r.code != 0 && r.code != 3 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	var health []sample.Health
	for _, tr := range readCSV(t, filepath.Join(out, rundir.Testers), "index", "start_ns", "stop_ns").rows {
		for s := int64(tr.float(t, "start_ns") / 1e9); s <= int64(tr.float(t, "stop_ns")/1e9); s++ {
			health = append(health, sample.Health{Slot: tr.int(t, "index"), T: s, CPUPct: 97, CPUCores: 1,
				HostBusyPct: 60, HostStealPct: 0, LagMeanMs: 0.5, LagMaxMs: 1, Starts: 10, FDs: 12, FDLimit: 1024})
		}
	}
	if err := rundir.WriteHealth(out, health); err != nil {
		t.Fatal(err)
	}
	r := diperf(t, time.Minute, "analyze", out)
	if r.code != 3 || !strings.Contains(r.stdout+r.stderr, "FAIL  tester_cpu_pct < 80  (observed 97%)") {
		t.Errorf("analyze: exit %d, want 3 with tester_cpu_pct < 80 failed at 97%%\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	bound, ran, both := 0, 0, 0
	for _, q := range readCSV(t, filepath.Join(out, rundir.Quanta), "active", "tester_bound").rows {
		if q.int(t, "active") == 0 {
			continue
		}
		ran++
		switch got := q.str(t, "tester_bound"); got {
		case "tester CPU 97% (tester 0, 1)", "tester CPU 97% (tester 0)", "tester CPU 97% (tester 1)": // one alone at the edges
			bound++
			both += strings.Count(got, ",")
		default:
			t.Errorf("quanta.csv line %d: tester_bound %q, want the testers' CPU", q.line, got)
		}
	}
	s := readSummary(t, out)
	if ran < 3 || both == 0 || s.Testers.BoundQuanta != bound || s.Testers.HealthQuanta != ran {
		t.Errorf("%d quanta with a tester, %d tester-bound (%d naming both); summary.json: %d with health, %d bound", ran, bound, both, s.Testers.HealthQuanta, s.Testers.BoundQuanta)
	}
}
