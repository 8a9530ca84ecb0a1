package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/rundir"
)

// TestAnalyzeVerifyFix checks `diperf analyze --verify [--fix]` on a run
// with a duplicate and a call that ends before it starts: --verify reports
// them and refuses to analyze, --fix drops exactly them and analyzes.
func TestAnalyzeVerifyFix(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	o := bench.SynthOptions{Samples: 2000, Testers: 4, StartInterval: 200 * time.Millisecond,
		BaseRT: 10 * time.Millisecond, Capacity: 2, Seed: 1}
	if err := bench.WriteSynthRun(dir, o); err != nil {
		t.Fatal(err)
	}
	code, out := runMain(t, "analyze", dir, "--verify")
	if code != 0 || !strings.Contains(out, "OK") {
		t.Fatalf("clean run: exit %d\n%s", code, out)
	}
	rows, err := parquet.ReadFile[rundir.Row](filepath.Join(dir, rundir.Samples))
	if err != nil {
		t.Fatal(err)
	}
	bad := rows[7]
	bad.EndNs = bad.StartNs - 1
	bad.Seq = 100_000
	rows = append(rows, rows[3], bad)
	if err := rundir.WriteRows(dir, feed(rows)); err != nil {
		t.Fatal(err)
	}
	code, out = runMain(t, "analyze", dir, "--verify")
	if code != 1 || !strings.Contains(out, "duplicate") || !strings.Contains(out, "2 bad") {
		t.Fatalf("bad rows: exit %d, want 1 and a report of 2 bad rows\n%s", code, out)
	}
	code, out = runMain(t, "analyze", dir, "--verify", "--fix")
	if code != 0 || !strings.Contains(out, "2 bad rows dropped") {
		t.Fatalf("--fix: exit %d\n%s", code, out)
	}
	s, err := pipeline.ReadSummary(dir)
	if err != nil || s.Samples.Total != int(o.Samples) {
		t.Fatalf("after the fix: summary %+v, %v; want %d samples", s, err, o.Samples)
	}
}

// runMain runs diperf with args and returns its exit code and all output.
func runMain(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := Main(args, &out, &out)
	return code, out.String()
}

// feed hands rows to rundir.WriteRows.
func feed(rows []rundir.Row) func([]rundir.Row) (int, error) {
	return func(buf []rundir.Row) (int, error) {
		n := copy(buf, rows)
		rows = rows[n:]
		return n, nil
	}
}
