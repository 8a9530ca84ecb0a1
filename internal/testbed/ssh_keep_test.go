package testbed

import (
	"os"
	"path/filepath"
	"testing"
)

// writeRunFiles makes a run folder with pids, a made file and the spools
// given (name → content) under dir/runs/run.
func writeRunFiles(t *testing.T, dir, run string, spools map[string]string) {
	t.Helper()
	rd := filepath.Join(dir, "runs", run)
	for _, d := range []string{"pids", SpoolDir} {
		if err := os.MkdirAll(filepath.Join(rd, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"pids/0": "999999999", MadeFile: ""}
	for name, body := range spools {
		files[filepath.Join(SpoolDir, name)] = body
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(rd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// exists reports whether dir/rel exists.
func exists(dir, rel string) bool {
	_, err := os.Stat(filepath.Join(dir, rel))
	return err == nil
}

// TestSweepRunKeepsUnsettledSpools: the run's own cleanup removes its
// folder but for the testers' spools the controller did not settle (an
// empty one holds nothing to keep).
func TestSweepRunKeepsUnsettledSpools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRunFiles(t, dir, "r1", map[string]string{"0.spool": "x", "1.spool": "x", "2.spool": "", "junk": "x"})
	_, kept, err := SweepRun(dir, "r1", -1, true, map[int]bool{0: true})
	if err != nil || kept != 1 {
		t.Fatalf("SweepRun: kept %d, %v; want 1", kept, err)
	}
	for rel, want := range map[string]bool{"runs/r1/spool/1.spool": true, "runs/r1/spool/0.spool": false,
		"runs/r1/spool/2.spool": false, "runs/r1/spool/junk": false, "runs/r1/pids": false, "runs/r1/" + MadeFile: false} {
		if exists(dir, rel) != want {
			t.Errorf("%s: exists %v, want %v", rel, !want, want)
		}
	}
}

// TestSweepStaleKeepsSpoolsUntilFetched: a later run's sweep of a dead run
// keeps its testers' spools, as often as it runs, and removes the run's
// folder once they are gone (fetched).
func TestSweepStaleKeepsSpoolsUntilFetched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRunFiles(t, dir, "dead", map[string]string{"3.spool": "x", "4.spool": "y"})
	for range 2 {
		sw, err := SweepStale(dir, "mine")
		if err != nil || sw.Kept["dead"] != 2 || len(sw.Removed) != 0 {
			t.Fatalf("SweepStale = %+v, %v; want dead's 2 spools kept", sw, err)
		}
		if !exists(dir, "runs/dead/spool/3.spool") || !exists(dir, "runs/dead/spool/4.spool") || exists(dir, "runs/dead/pids") {
			t.Fatal("the dead run's spools went, or its pids stayed")
		}
	}
	for _, n := range []string{"3.spool", "4.spool"} {
		if err := os.Remove(filepath.Join(dir, "runs/dead", SpoolDir, n)); err != nil {
			t.Fatal(err)
		}
	}
	if sw, err := SweepStale(dir, "mine"); err != nil || len(sw.Removed) != 1 || exists(dir, "runs") {
		t.Fatalf("SweepStale once fetched = %+v, %v; want the run removed, and the runs folder", sw, err)
	}
}
