package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

const t0 = int64(1_700_000_000_000_000_000)

// fakeRun writes a spool as the controller writes it (tester records at
// each change of state, syncs, batches, interleaved across testers) and
// keeps the records the controller keeps in memory. Testers with an index
// in unfinished never say Done.
type fakeRun struct {
	sp   *rundir.SpoolWriter
	recs []*rundir.TesterRecord
}

func newFakeRun(t *testing.T, dir string, testers int) *fakeRun {
	t.Helper()
	sp, err := rundir.CreateSpool(filepath.Join(dir, rundir.Spool))
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRun{sp: sp}
	for i := range testers {
		rec := &rundir.TesterRecord{Slot: i, LaunchNs: t0 + int64(i)*1e9, PlannedNs: t0 + 2e9, InjectedOff: int64(i) * 1e6}
		r.recs = append(r.recs, rec)
		r.journal(t, i)
		rec.ID, rec.Host, rec.PID = "h:"+string(rune('a'+i)), "h", 100+i
		r.journal(t, i) // admitted
	}
	return r
}

func (r *fakeRun) journal(t *testing.T, i int) {
	t.Helper()
	if err := r.sp.Tester(*r.recs[i]); err != nil {
		t.Fatal(err)
	}
}

func (r *fakeRun) sync(t *testing.T, i int, local, off int64) {
	t.Helper()
	rec := clock.Record{LocalNs: local, OffsetNs: off, RTTNs: 1e5, BoundNs: 5e4}
	r.recs[i].Syncs = append(r.recs[i].Syncs, rec)
	if err := r.sp.Sync(i, rec); err != nil {
		t.Fatal(err)
	}
}

func (r *fakeRun) batch(t *testing.T, i int, from, n uint64) {
	t.Helper()
	b := &protocol.Batch{Produced: from + n - 1 + 2} // two more produced, still in the tester's outbox
	for s := from; s < from+n; s++ {
		st := sample.OK
		if s%7 == 0 {
			st = sample.Failed
		}
		at := t0 + 2e9 + int64(s)*1e8
		b.Samples = append(b.Samples, sample.Sample{Seq: s, Start: at, End: at + 5e7 + int64(i)*1e6, Status: st, Bytes: int64(s)})
	}
	if err := r.sp.Batch(i, protocol.AppendBatch(nil, b)); err != nil {
		t.Fatal(err)
	}
	r.recs[i].Received += n
	r.recs[i].Sent = max(r.recs[i].Sent, b.Produced)
}

// play runs three testers to their end, but those in unfinished.
func (r *fakeRun) play(t *testing.T, unfinished ...int) {
	t.Helper()
	for i := range r.recs {
		r.sync(t, i, t0+1e9, int64(i)*1e6)
		r.recs[i].StartNs, r.recs[i].TargetRTTNs = t0+2e9+int64(i), 3e5
		r.journal(t, i) // started
	}
	for k := range uint64(5) {
		for i := range r.recs {
			r.batch(t, i, 1+k*10, 10)
		}
		r.sync(t, 0, t0+int64(3+k)*1e9, 2e6+int64(k)*1e5)
	}
	for i, rec := range r.recs {
		if slicesContains(unfinished, i) {
			continue
		}
		rec.StopNs, rec.Sent = t0+8e9, rec.Sent+2
		r.journal(t, i) // done
	}
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// copySpool copies the spool of from into a new run directory.
func copySpool(t *testing.T, from string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(from, rundir.Spool))
	if err != nil {
		t.Fatal(err)
	}
	dir := runDir(t)
	if err := os.WriteFile(filepath.Join(dir, rundir.Spool), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runDir returns a new run directory holding only its experiment.
func runDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	exp := "name: crash\nclient:\n  exec: [\"true\"]\nschedule:\n  testers: 3\n"
	if err := os.WriteFile(filepath.Join(dir, rundir.Experiment), []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readRows(t *testing.T, dir string) []rundir.Row {
	t.Helper()
	var rows []rundir.Row
	if err := rundir.ScanRows(dir, rundir.Samples, func(rs []rundir.Row) error {
		rows = append(rows, rs...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

func sameFile(t *testing.T, a, b, name string) {
	t.Helper()
	x, err := os.ReadFile(filepath.Join(a, name))
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(filepath.Join(b, name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s differs:\nclean finish:\n%s\nrecovered:\n%s", name, x, y)
	}
}

// TestRecoveryRebuildsWhatACleanFinishWrites: a controller killed after
// every tester said Done but before it wrote the run's files leaves a
// spool from which the recovery writes the very files it would have.
func TestRecoveryRebuildsWhatACleanFinishWrites(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	run := newFakeRun(t, live, 3)
	run.play(t)
	crashed := copySpool(t, live) // the kill: the writer is never closed
	clean := copySpool(t, live)
	if err := rundir.WriteTesters(clean, run.recs); err != nil { // what finish writes
		t.Fatal(err)
	}
	if _, err := rundir.WriteSamples(clean, run.recs); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rec, err := Recover(crashed, &out)
	if err != nil {
		t.Fatal(err)
	}
	if *rec != (Recovery{Samples: 150, Testers: 3}) {
		t.Errorf("recovery %+v", rec)
	}
	if !strings.Contains(out.String(), "recovered 150 samples of 3 testers from the spool; the run is incomplete") {
		t.Errorf("recovery said %q", out.String())
	}
	sameFile(t, clean, crashed, rundir.Testers)
	sameFile(t, clean, crashed, rundir.Syncs)
	if a, b := readRows(t, clean), readRows(t, crashed); len(a) != 150 || !reflect.DeepEqual(a, b) {
		t.Errorf("samples.parquet: %d rows from the clean finish, %d recovered, equal %v", len(a), len(b), reflect.DeepEqual(a, b))
	}
	if _, err := os.Stat(filepath.Join(crashed, rundir.Spool)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spool is still there after its files were written: %v", err)
	}
	if err := run.sp.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRecoveryCutsShortTheUnfinished: testers still running when the
// controller died are failed with CutShort, stopped at the last moment
// the spool knows of; the summary is marked incomplete, also on a second
// analysis.
func TestRecoveryCutsShortTheUnfinished(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	run := newFakeRun(t, live, 3)
	run.play(t, 1, 2)
	dir := copySpool(t, live)
	defer run.sp.Close()
	rec, err := Recover(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.CutShort != 2 || rec.Samples != 150 {
		t.Errorf("recovery %+v, want 2 cut short of 150 samples", rec)
	}
	testers, err := rundir.ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range testers {
		want := rundir.TesterRecord(*run.recs[i])
		if i > 0 {
			// Stopped when tester 0 did, the latest moment the spool
			// knows of (its samples end before).
			want.Failed, want.FailureReason, want.StopNs = true, CutShort, t0+8e9
		}
		if !reflect.DeepEqual(*tr, want) {
			t.Errorf("tester %d:\n got %+v\nwant %+v", i, *tr, want)
		}
	}
	reason, err := Incomplete(dir)
	if err != nil || !strings.Contains(reason, "recovered 150 samples of 3 testers") {
		t.Errorf("Incomplete: %q, %v", reason, err)
	}
	if rec, err := Recover(dir, nil); rec != nil || err != nil {
		t.Errorf("a second recovery: %+v, %v; want nothing to do", rec, err)
	}
}

// TestRecoveryOfATornSpool: a crash mid-frame loses that frame only.
func TestRecoveryOfATornSpool(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	run := newFakeRun(t, live, 2)
	run.play(t)
	defer run.sp.Close()
	dir := copySpool(t, live)
	// Cut the spool after the last batch of tester 1 minus 3 bytes: the
	// Done records and that batch are torn off.
	path := filepath.Join(dir, rundir.Spool)
	b, _ := os.ReadFile(path)
	var ends []int64
	off := int64(0)
	for off < int64(len(b)) {
		n := int64(b[off])<<24 | int64(b[off+1])<<16 | int64(b[off+2])<<8 | int64(b[off+3])
		off += 5 + n
		ends = append(ends, off)
	}
	// Frames at the end: ..., batch(1), sync(0), done(0), done(1).
	cut := ends[len(ends)-4] - 3
	if err := os.WriteFile(path, b[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := Recover(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Samples != 90 || rec.CutShort != 2 {
		t.Errorf("recovery of a torn spool %+v, want 90 samples, 2 cut short", rec)
	}
	if n, err := rundir.CountSamples(dir); err != nil || n != 90 {
		t.Errorf("samples.parquet has %d rows (%v), want 90", n, err)
	}
	// No Done reached the spool: both stop at the end of the last sample
	// (tester 0's seq 50, ending at local t0+7.05e9, a few ms off global).
	testers, err := rundir.ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range testers {
		if tr.StopNs < t0+7.05e9 || tr.StopNs > t0+7.06e9 {
			t.Errorf("tester %d stopped at t0%+d ns, want the end of the last sample", tr.Slot, tr.StopNs-t0)
		}
	}
}

// TestRecoverySaysWhatIsMissing: with neither the raw files nor a spool,
// the error names them instead of failing to open testers.csv.
func TestRecoverySaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	_, err := Recover(runDir(t), nil)
	if err == nil || !strings.Contains(err.Error(), "no testers.csv and no samples.spool") {
		t.Errorf("error %v", err)
	}
	if rec, err := Recover(t.TempDir(), nil); rec != nil || err != nil {
		t.Errorf("recovery of a directory that is no run: %+v, %v", rec, err)
	}
}

// TestRecoveryWaitsForALiveController: a spool still written is not
// touched.
func TestRecoveryWaitsForALiveController(t *testing.T) {
	t.Parallel()
	dir := runDir(t)
	run := newFakeRun(t, dir, 1)
	defer run.sp.Close()
	_, err := Recover(dir, nil)
	if !errors.Is(err, rundir.ErrSpoolInUse) || !strings.Contains(err.Error(), "wait for `diperf run` to end") {
		t.Errorf("recovery of a live run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.Testers)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("testers.csv written for a live run")
	}
}

// TestDeriveMarksARecoveredRunIncomplete: the whole analysis of a crashed
// run works and its summary.json says it is incomplete, and why.
func TestDeriveMarksARecoveredRunIncomplete(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	run := newFakeRun(t, live, 3)
	run.play(t, 2)
	defer run.sp.Close()
	dir := copySpool(t, live)
	for range 2 { // the second analysis finds the run already recovered
		res, err := Derive(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Incomplete || !strings.Contains(s.IncompleteReason, "the controller stopped") || s.Samples.Total != 150 ||
			!res.Summary.Incomplete || s.Testers.Failed != 1 {
			t.Errorf("summary: incomplete %v %q, %d samples, %d failed", s.Incomplete, s.IncompleteReason, s.Samples.Total, s.Testers.Failed)
		}
	}
}
