package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/search"
)

// searchExperiment is an open-model experiment against url whose rate the
// search sets: 2 testers of 16 clients, for at most 40 s.
func searchExperiment(url string) string {
	return "name: search\ntarget: " + url + "\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 2s\n" +
		"schedule:\n  testers: 2\n  tester_start_interval: 0s\n  tester_duration: 40s\n  clients_per_tester: 16\n  rate: {arrivals: uniform}\n"
}

// TestSearchCLIFindsCapacity runs diperf search against a target of 4
// workers of 20 ms, a capacity of 200 calls/s, for p99 under 60 ms: the
// queue of a rate above 200 calls/s grows without bound, so no such load
// meets it for long, and at half that the service time is the response
// time. Exit 0, summary.json's search block brackets what the physics
// allows, and search.csv has a row per step whose decisions agree.
func TestSearchCLIFindsCapacity(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 4, 20*time.Millisecond)
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, 90*time.Second, "search", writeExperiment(t, searchExperiment(url)), "--slo", "p99_ms < 60",
		"--start", "100", "--max-rate", "800", "--precision", "50%", "--min-capacity", "1", "--ui", "off", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	b := readSummary(t, out).Search
	if b == nil || b.Verdict != search.VerdictCapacity || b.Capacity == nil || b.BreaksAt == nil || b.Unit != "calls/s" || b.Binding != "p99_ms < 60" {
		t.Fatalf("search block %+v; want a capacity bound by p99_ms < 60\n%s", b, r.stdout)
	}
	if lo, hi := *b.Capacity, *b.BreaksAt; lo > 200*1.15 || hi < 100 || hi > lo*1.5 {
		t.Errorf("capacity %g, breaks at %g: want at most 230 calls/s (a rate above 200 queues without bound), "+
			"the lowest load that failed at least 100 (half the capacity), within the precision (50%%)", lo, hi)
	}
	if !strings.Contains(r.stdout, "capacity: capacity ") || !strings.Contains(r.stdout, "search verdict") {
		t.Errorf("the printed summary has no search line:\n%s", r.stdout)
	}
	steps := readCSV(t, filepath.Join(out, "search.csv"), "step", "load", "decision", "calls")
	if len(steps.rows) != b.Steps || b.Steps < 2 {
		t.Fatalf("search.csv has %d steps, the summary %d; want the same, at least 2", len(steps.rows), b.Steps)
	}
	for _, row := range steps.rows {
		load, dec := row.float(t, "load"), row.str(t, "decision")
		switch {
		case load == *b.Capacity && dec != "meets", load == *b.BreaksAt && dec != "fails":
			t.Errorf("search.csv line %d: load %g decided %q; the capacity met, the breaking load failed", row.line, load, dec)
		case row.int(t, "calls") == 0:
			t.Errorf("search.csv line %d: load %g with no call", row.line, load)
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
