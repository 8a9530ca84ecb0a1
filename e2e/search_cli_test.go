package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/search"
)

// searchExperiment is an open-model experiment against url whose rate the
// search sets: 2 testers of 200 clients (an overload queues calls in flight: a tester out of free clients would be the limit), for at most 40 s.
func searchExperiment(url string) string {
	return "name: search\ntarget: " + url + "\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 2s\n" +
		"schedule:\n  testers: 2\n  tester_start_interval: 0s\n  tester_duration: 40s\n  clients_per_tester: 200\n  rate: {arrivals: uniform}\n"
}

// TestSearchCLIFindsCapacity runs diperf search against a target of 10
// workers of 50 ms, a capacity of 200 calls/s, for p90 under 150 ms (a
// tenth of the calls may be late: a busy machine's noise does not
// decide), from 150 calls/s with 250 the highest: at 150 calls/s,
// arriving evenly, no call waits (the service time is the response time,
// with 100 ms to spare); at 250 the queue grows by 50 calls a second, and
// its waits pass 150 ms within the warm-up. So 150 meets, 250 fails, and
// at 90% precision the search stops there: exit 0, summary.json's search
// block says so, and search.csv has the two steps.
func TestSearchCLIFindsCapacity(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 10, 50*time.Millisecond)
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, 90*time.Second, "search", writeExperiment(t, searchExperiment(url)), "--slo", "p90_ms < 150",
		"--start", "150", "--max-rate", "250", "--precision", "90%", "--min-capacity", "100", "--ui", "off", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	b := readSummary(t, out).Search
	if b == nil || b.Verdict != search.VerdictCapacity || b.Capacity == nil || *b.Capacity != 150 || b.BreaksAt == nil || *b.BreaksAt != 250 ||
		b.Unit != "calls/s" || b.Binding != "p90_ms < 150" || b.Steps != 2 || b.MinCapacity != 100 {
		t.Fatalf("search block %+v; want capacity 150 calls/s, 250 failing p90_ms < 150, in 2 steps\n%s", b, r.stdout)
	}
	if !strings.Contains(r.stdout, "capacity: 150 calls/s in [150, 250], p90_ms < 150 binds; 2 steps") {
		t.Errorf("the printed summary has no search line:\n%s", r.stdout)
	}
	steps := readCSV(t, filepath.Join(out, "search.csv"), "step", "load", "decision", "calls")
	want := map[float64]string{150: "meets", 250: "fails"}
	if len(steps.rows) != 2 {
		t.Fatalf("search.csv has %d steps, want 2", len(steps.rows))
	}
	for _, row := range steps.rows {
		if load := row.float(t, "load"); want[load] != row.str(t, "decision") || row.int(t, "calls") == 0 {
			t.Errorf("search.csv line %d: load %g decided %q with %d calls; want 150 meets, 250 fails", row.line, load, row.str(t, "decision"), row.int(t, "calls"))
		}
	}
}

// TestSearchCLINoLoadMeets: p99 under 1 ms from a target of 20 ms service
// time: no load meets it, the search stops after its first step, and
// diperf search, then diperf analyze of its run, exit 3.
func TestSearchCLINoLoadMeets(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 4, 20*time.Millisecond)
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, 60*time.Second, "search", writeExperiment(t, searchExperiment(url)), "--slo", "p99_ms < 1",
		"--max-rate", "320", "--ui", "off", "--out", out)
	if r.code != 3 || !strings.Contains(r.stderr, "no load met the objectives") {
		t.Fatalf("exit %d, want 3 (no load met the objectives)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	b := readSummary(t, out).Search
	if b == nil || b.Verdict != search.VerdictFailsAtLowest || b.Capacity != nil || b.BreaksAt == nil || *b.BreaksAt != 20 || b.Steps != 1 {
		t.Fatalf("search block %+v; want fails-at-lowest at the first load, 320/16 = 20 calls/s, after one step", b)
	}
	if a := diperf(t, 30*time.Second, "analyze", out); a.code != 3 {
		t.Errorf("diperf analyze of the run: exit %d, want 3\nstderr:\n%s", a.code, a.stderr)
	}
}
