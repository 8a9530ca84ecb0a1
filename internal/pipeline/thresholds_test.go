package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/diperf/diperf/internal/rundir"
)

// Derive checks the experiment's thresholds and writes them into
// summary.json beside the summary, which reads as before.
func TestDeriveThresholds(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	run := newFakeRun(t, live, 3)
	run.play(t)
	defer run.sp.Close()
	dir := copySpool(t, live)
	exp := "name: crash\nclient:\n  exec: [\"true\"]\nschedule:\n  testers: 3\n" +
		"thresholds:\n  - p99_ms < 1000\n  - check: error_rate < 1%\n    over: last 2s\n"
	if err := os.WriteFile(filepath.Join(dir, rundir.Experiment), []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteTesters(dir, run.recs); err != nil {
		t.Fatal(err)
	}
	if _, err := rundir.WriteSamples(dir, run.recs); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, rundir.Spool)); err != nil {
		t.Fatal(err)
	}
	res, err := Derive(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ths, err := ReadThresholds(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ths) != 2 || !ths[0].Passed || ths[1].Passed || ths[1].Name != "error_rate < 1% over last 2s" || ths[1].Observed == nil || *ths[1].Observed < 5 {
		t.Fatalf("thresholds %+v; want p99 passed and the error rate (1 call in 7 failed) not", ths)
	}
	s, err := ReadSummary(dir)
	if err != nil || s.Samples.OK != res.Summary.Samples.OK || s.ResponseTimeMs != res.Summary.ResponseTimeMs {
		t.Errorf("summary.json reads back %+v, %v", s, err)
	}
}
