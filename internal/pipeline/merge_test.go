package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// ownBatch is a tester's batch of seqs from..to (client 0 unless given),
// with produced as its count so far.
func ownBatch(from, to, produced uint64, client uint32, extras ...sample.Extra) *protocol.Batch {
	b := &protocol.Batch{Produced: produced}
	for s := from; s <= to; s++ {
		at := t0 + 2e9 + int64(s)*1e8
		b.Samples = append(b.Samples, sample.Sample{Seq: s, Client: client, Start: at, End: at + 5e7, Status: sample.OK, Extras: extras})
	}
	return b
}

// writeOwnSpool writes a tester's own spool at path: batches tagged slot.
func writeOwnSpool(t *testing.T, path string, slot int, batches ...*protocol.Batch) {
	t.Helper()
	sp, err := rundir.CreateSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := sp.Batch(slot, protocol.AppendBatch(nil, b)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
}

// storedByTester counts samples.parquet's rows per tester and fails the
// test on a (tester, client, seq) found twice.
func storedByTester(t *testing.T, dir string) map[int]int {
	t.Helper()
	seen, n := map[[3]int64]bool{}, map[int]int{}
	for _, r := range readRows(t, dir) {
		k := [3]int64{int64(r.Tester), int64(r.Client), r.Seq}
		if seen[k] {
			t.Errorf("tester %d client %d seq %d stored twice", r.Tester, r.Client, r.Seq)
		}
		seen[k] = true
		n[int(r.Tester)]++
	}
	return n
}

// checkCounts checks testers.csv's sent, received and lost of each tester.
func checkMergedCounts(t *testing.T, dir string, want map[int][3]uint64) {
	t.Helper()
	recs, err := rundir.ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if got := [3]uint64{r.Sent, r.Received, r.Lost()}; got != want[r.Slot] {
			t.Errorf("tester %d: sent, received, lost %v; want %v", r.Slot, got, want[r.Slot])
		}
	}
}

// TestRecoveryMergesTheTestersSpools: a controller killed mid-run spooled
// seqs 1..50 of each of three testers; the testers' own spools hold more.
// The recovery stores every sample of any spool once by (tester, client,
// seq), leaves out a batch in another tester's spool, one of a tester
// the run does not know and samples numbered 0 or past their batch's
// produced count, makes lost produced − stored, removes the
// spools it read, and a second analysis changes nothing.
func TestRecoveryMergesTheTestersSpools(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	run := newFakeRun(t, live, 3)
	run.play(t, 1) // tester 1 never said Done
	dir := copySpool(t, live)
	if err := os.MkdirAll(filepath.Join(dir, rundir.LogDir), 0o755); err != nil {
		t.Fatal(err)
	}
	writeOwnSpool(t, rundir.TesterSpoolPath(dir, 0), 0, ownBatch(1, 30, 30, 0), ownBatch(31, 55, 57, 0),
		ownBatch(0, 0, 57, 0), ownBatch(1000, 1000, 57, 0)) // numbers no tester gives: left out
	writeOwnSpool(t, rundir.TesterSpoolPath(dir, 1), 1, ownBatch(1, 60, 60, 0))
	writeOwnSpool(t, rundir.TesterSpoolPath(dir, 2), 1, ownBatch(61, 70, 70, 0)) // tester 1's batch in tester 2's spool
	writeOwnSpool(t, filepath.Join(dir, rundir.LogDir, "joined.spool"), 9, ownBatch(1, 5, 5, 0), ownBatch(50, 50, 50, 0))
	writeOwnSpool(t, filepath.Join(dir, rundir.LogDir, "copied.spool"), 2, ownBatch(50, 50, 53, 1))
	var out bytes.Buffer
	if _, err := Recover(dir, &out); err != nil {
		t.Fatal(err)
	}
	if got := storedByTester(t, dir); got[0] != 55 || got[1] != 60 || got[2] != 51 || len(got) != 3 {
		t.Errorf("stored per tester %v; want 55, 60, 51", got)
	}
	// tester 0: its spool says 57 produced; 1: 60 (the controller saw 52);
	// 2: 54 (its Done), and seq 50 of its client 1 is a sample of its own.
	checkMergedCounts(t, dir, map[int][3]uint64{0: {57, 55, 2}, 1: {60, 60, 0}, 2: {54, 51, 3}})
	if s := out.String(); !strings.Contains(s, "merged 16 samples from 5 testers' own spools") || !strings.Contains(s, "18 samples of testers the run does not know") {
		t.Errorf("the merge said %q", s)
	}
	if left, _ := rundir.TesterSpools(dir); len(left) != 0 {
		t.Errorf("spools left after the merge: %v", left)
	}
	before, _ := os.ReadFile(filepath.Join(dir, rundir.Samples))
	out.Reset()
	if _, err := Recover(dir, &out); err != nil || out.Len() != 0 {
		t.Errorf("a second recovery: %v, said %q", err, out.String())
	}
	if after, _ := os.ReadFile(filepath.Join(dir, rundir.Samples)); !bytes.Equal(before, after) {
		t.Error("a second recovery rewrote samples.parquet")
	}
}

// TestMergeIntoAnAnalyzedRun: spools that come after the run's files were
// written (diperf fetch after an analysis, or a tester spool its
// controller could not retrieve) are merged into them, the extras they
// carry becoming a column, the rows already there kept as they were.
func TestMergeIntoAnAnalyzedRun(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	run := newFakeRun(t, live, 3)
	run.play(t, 1)
	dir := copySpool(t, live)
	if _, err := Recover(dir, nil); err != nil {
		t.Fatal(err)
	}
	old := readRows(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, rundir.LogDir), 0o755); err != nil {
		t.Fatal(err)
	}
	writeOwnSpool(t, rundir.TesterSpoolPath(dir, 1), 1, ownBatch(40, 58, 58, 0, sample.Extra{Key: "mb", Value: 1.5}))
	var out bytes.Buffer
	if _, err := Recover(dir, &out); err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, dir)
	if len(rows) != len(old)+8 {
		t.Fatalf("%d rows after the merge, %d before; want 8 more", len(rows), len(old))
	}
	for i := range old {
		if old[i].Seq != rows[i].Seq || old[i].StartNs != rows[i].StartNs || len(rows[i].Extras) != 0 {
			t.Fatalf("row %d changed: %+v, was %+v", i, rows[i], old[i])
		}
	}
	for _, r := range rows[len(old):] {
		if r.Tester != 1 || len(r.Extras) != 1 || r.Extras[0] != (sample.Extra{Key: "mb", Value: 1.5}) {
			t.Errorf("merged row %+v; want tester 1 with its extra mb=1.5", r)
		}
	}
	checkMergedCounts(t, dir, map[int][3]uint64{0: {54, 50, 4}, 1: {58, 58, 0}, 2: {54, 50, 4}})
	if !strings.Contains(out.String(), "merged 8 samples from 1 testers' own spools") {
		t.Errorf("the merge said %q", out.String())
	}
	if inc, err := Incomplete(dir); err != nil || !strings.Contains(inc, "merged 8 samples") {
		t.Errorf("Incomplete = %q, %v; want the merge said", inc, err)
	}
	if _, err := os.Stat(rundir.TesterSpoolPath(dir, 1)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the merged spool is still there: %v", err)
	}
}
