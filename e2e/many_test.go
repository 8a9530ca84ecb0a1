package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

// manyPair is a (tester, client) pair: a client of a run whose testers
// run several.
type manyPair struct {
	tester int32
	client uint32
}

// TestManyClientsPerTester runs 2 testers of 50 clients each (an exec
// client, `true`, against nothing), the clients 10 ms apart: 100 distinct
// (tester, client) pairs make calls, in samples.parquet (our reader and
// DuckDB's) and in clients.csv, whose fairness is over the 100 clients.
func TestManyClientsPerTester(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, `name: many
client: {exec: [true], timeout: 10s}
schedule:
  testers: 2
  tester_start_interval: 0s
  tester_duration: 4s
  client_interval: 500ms
  clients_per_tester: 50
  client_start_interval: 10ms
`)
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, 2*time.Minute, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkRunDir(t, out)
	s := readSummary(t, out)
	if s.Testers.Started != 2 || s.Samples.Lost != 0 || s.Samples.OK < 100 {
		t.Fatalf("summary: %+v %+v", s.Testers, s.Samples)
	}
	firsts := manySamplePairs(t, out, s.Samples.Total)
	// Client j's first call is due j × 10 ms after its tester's loop
	// started (one instant for every client), never sooner. Both stamps
	// compared are the tester's own clock mapped onto the global timeline
	// by the same offsets: over 490 ms the mapping's drift correction
	// moves their difference by at most drift × 0.49 s, under 100 µs for
	// a drift under 200 ppm.
	recs, err := rundir.ReadTesters(out)
	if err != nil {
		t.Fatal(err)
	}
	const slop = 100 * time.Microsecond
	for _, rec := range recs {
		first, ok := firsts[manyPair{int32(rec.Slot), 49}]
		if d := time.Duration(first - rec.StartNs); !ok || rec.StartNs == 0 || d < 490*time.Millisecond-slop {
			t.Errorf("tester %d: client 49 first called %v after its tester's loop started, want at least 490ms", rec.Slot, d)
		}
	}
	manyDuckDB(t, out, s.Samples.Total)
	peak := manyClientsCSV(t, out)
	// Every client ran over the peak window, and Jain's index is theirs.
	if s.Fairness.Clients != 100 || s.Peak.Clients != 100 || s.Peak.Testers != 2 {
		t.Errorf("fairness over %d clients, peak of %d clients and %d testers; want 100, 100 and 2",
			s.Fairness.Clients, s.Peak.Clients, s.Peak.Testers)
	}
	if j := manyJain(peak); s.Fairness.Jain <= 0 || s.Fairness.Jain > 1 || fmt.Sprintf("%.3f", j) != fmt.Sprintf("%.3f", s.Fairness.Jain) {
		t.Errorf("summary's Jain index %v, clients.csv's peak_ok give %v", s.Fairness.Jain, j)
	}
}

// manySamplePairs reads samples.parquet with our reader: want rows, of
// 100 (tester, client) pairs, tester 0..1 and client 0..49; it returns
// each pair's first call start (global Unix ns).
func manySamplePairs(t *testing.T, dir string, want int) map[manyPair]int64 {
	t.Helper()
	first := map[manyPair]int64{}
	var n int
	err := rundir.ScanRows(dir, rundir.Samples, func(rows []rundir.Row) error {
		for _, r := range rows {
			n++
			p := manyPair{r.Tester, r.Client}
			if f, ok := first[p]; !ok || r.StartNs < f {
				first[p] = r.StartNs
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != want || len(first) != 100 {
		t.Fatalf("samples.parquet: %d rows of %d (tester, client) pairs, want %d of 100", n, len(first), want)
	}
	for p := range first {
		if p.tester > 1 || p.client > 49 {
			t.Errorf("samples.parquet has tester %d client %d", p.tester, p.client)
		}
	}
	return first
}

// manyDuckDB reads samples.parquet's client column with DuckDB, a reader
// that shares no code with ours.
func manyDuckDB(t *testing.T, dir string, want int) {
	t.Helper()
	got, ok := duckdbQuery(t, dir, "select count(*), count(distinct (tester, client)), min(client), max(client) from SAMPLES")
	if !ok {
		t.Log("python3 duckdb not installed (scripts/test.sh installs it): samples.parquet read by our reader only")
		return
	}
	if w := fmt.Sprintf("(%d, 100, 0, 49)", want); got != w {
		t.Errorf("duckdb read %s, want %s", got, w)
	}
}

// manyClientsCSV reads clients.csv by its header: one row per (tester,
// client), each with calls; it returns every row's peak_ok.
func manyClientsCSV(t *testing.T, dir string) []int {
	t.Helper()
	tab := readCSV(t, filepath.Join(dir, "clients.csv"), "index", "client", "id", "ok", "peak_ok", "utilization", "fairness")
	pairs := map[manyPair]bool{}
	var peak []int
	for _, r := range tab.rows {
		pairs[manyPair{int32(r.int(t, "index")), uint32(r.int(t, "client"))}] = true
		if r.int(t, "ok") == 0 || r.float(t, "utilization") <= 0 {
			t.Errorf("clients.csv line %d: tester %s client %s made no successful call", r.line, r.str(t, "index"), r.str(t, "client"))
		}
		peak = append(peak, r.int(t, "peak_ok"))
	}
	if len(tab.rows) != 100 || len(pairs) != 100 {
		t.Errorf("clients.csv: %d rows of %d (tester, client) pairs, want 100 of 100", len(tab.rows), len(pairs))
	}
	return peak
}

// manyJain is Jain's index of xs.
func manyJain(xs []int) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += float64(x)
		sq += float64(x) * float64(x)
	}
	if sq == 0 {
		return 0
	}
	return sum * sum / (float64(len(xs)) * sq)
}
