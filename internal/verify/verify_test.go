package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/rundir"
)

// Lifetimes of the testers of verifyTesters.
const (
	verifyLaunch = int64(1_000_000_000_000)
	verifyStop   = verifyLaunch + int64(100*time.Second)
)

// verifyTesters are the testers of the test run directories: 0 and 1 have
// sync records, 2 and 3 none; 1 has no known stop.
func verifyTesters() []*rundir.TesterRecord {
	syncs := []clock.Record{{LocalNs: verifyLaunch, OffsetNs: 100, RTTNs: 1000, BoundNs: 500}}
	return []*rundir.TesterRecord{
		{Slot: 0, ID: "a:1", LaunchNs: verifyLaunch, StartNs: verifyLaunch + 1e9, StopNs: verifyStop, Syncs: syncs},
		{Slot: 1, ID: "b:2", LaunchNs: verifyLaunch, StartNs: verifyLaunch + 1e9, Syncs: syncs},
		{Slot: 2, ID: "c:3", LaunchNs: verifyLaunch, StartNs: verifyLaunch + 1e9, StopNs: verifyStop},
		{Slot: 3, ID: "d:4", LaunchNs: verifyLaunch, StartNs: verifyLaunch + 1e9, StopNs: verifyStop},
	}
}

// verifyRow is a good sample of tester with sequence number seq, changed
// by the edits.
func verifyRow(tester int32, seq int64, edits ...func(*rundir.Row)) rundir.Row {
	start := verifyLaunch + 2e9 + seq*1e6
	r := rundir.Row{Tester: tester, Seq: seq, StartNs: start, EndNs: start + 5e5, LocalStartNs: start - 100, Status: "ok"}
	for _, e := range edits {
		e(&r)
	}
	return r
}

// verifyRows are good samples of tester with the given sequence numbers.
func verifyRows(tester int32, seqs ...int64) []rundir.Row {
	var out []rundir.Row
	for _, s := range seqs {
		out = append(out, verifyRow(tester, s))
	}
	return out
}

// verifySeqs returns the numbers 1..n.
func verifySeqs(n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i) + 1
	}
	return out
}

// verifyJoin concatenates row lists.
func verifyJoin(parts ...[]rundir.Row) []rundir.Row {
	var out []rundir.Row
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Edits of verifyRow.
func verifyEndsEarly(r *rundir.Row)    { r.EndNs = r.StartNs - 1 }
func verifyBadStatus(r *rundir.Row)    { r.Status = "bogus" }
func verifyBeforeLaunch(r *rundir.Row) { r.StartNs, r.EndNs = verifyLaunch-1, verifyLaunch+1000 }
func verifyEndAt(t int64) func(*rundir.Row) {
	return func(r *rundir.Row) { r.StartNs, r.EndNs = t-1e6, t }
}

// writeVerifyDir makes a run directory with the testers of verifyTesters
// and samples.parquet holding rows.
func writeVerifyDir(t *testing.T, rows []rundir.Row) string {
	t.Helper()
	dir := t.TempDir()
	if err := rundir.WriteTesters(dir, verifyTesters()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, rundir.Samples))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := parquet.NewGenericWriter[rundir.Row](f, parquet.Compression(&parquet.Zstd))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readVerifyRows reads samples.parquet of dir back.
func readVerifyRows(t *testing.T, dir string) []rundir.Row {
	t.Helper()
	var out []rundir.Row
	err := rundir.ScanRows(dir, rundir.Samples, func(rows []rundir.Row) error {
		out = append(out, rows...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkVerifyCounts compares the count of every class with want.
func checkVerifyCounts(t *testing.T, r *Report, want map[Problem]int64) {
	t.Helper()
	for _, p := range reportOrder {
		if got := r.Problems[p].Count; got != want[p] {
			t.Errorf("%s: count %d, want %d (examples %+v)", p, got, want[p], r.Problems[p].Examples)
		}
	}
}

func TestVerifyDetects(t *testing.T) {
	t.Parallel()
	many := verifySeqs(3*rundir.RowChunk + 5)
	many = append(many[:9999], many[10000:]...) // seq 10000 lost
	tests := []struct {
		name    string
		rows    []rundir.Row
		want    map[Problem]int64
		bad     int64
		testers int
		ok      bool
	}{
		{name: "clean", rows: verifyJoin(verifyRows(0, 1, 2, 3, 4, 5), verifyRows(1, 1, 2, 3)),
			testers: 2, ok: true},
		{name: "end before start", rows: verifyJoin(verifyRows(0, 1, 2),
			[]rundir.Row{verifyRow(0, 3, verifyEndsEarly), verifyRow(0, 4), verifyRow(1, 1, verifyEndsEarly)}),
			want: map[Problem]int64{ProblemEndBeforeStart: 2}, bad: 2, testers: 2},
		{name: "duplicate", rows: verifyJoin(verifyRows(0, 1, 2, 3), verifyRows(0, 2, 2, 3), verifyRows(1, 1)),
			want: map[Problem]int64{ProblemDuplicate: 3}, bad: 3, testers: 2},
		{name: "unknown tester", rows: verifyJoin(verifyRows(0, 1, 2), verifyRows(7, 1, 2), verifyRows(-1, 1)),
			want: map[Problem]int64{ProblemUnknownTester: 3}, bad: 3, testers: 3},
		{name: "outside lifetime", rows: verifyJoin(verifyRows(0, 1, 2), []rundir.Row{
			verifyRow(0, 3, verifyBeforeLaunch),
			verifyRow(0, 4, verifyEndAt(verifyStop+int64(2*time.Minute))),
			verifyRow(0, 5, verifyEndAt(verifyStop+int64(30*time.Second))), // within the slack
			verifyRow(1, 1, verifyEndAt(verifyStop+int64(time.Hour))),      // stop unknown
		}), want: map[Problem]int64{ProblemOutsideLifetime: 2}, bad: 2, testers: 2},
		{name: "missing clock", rows: verifyJoin(verifyRows(0, 1, 2), verifyRows(2, 1, 2, 3)),
			want: map[Problem]int64{ProblemMissingClock: 1}, testers: 2},
		{name: "bad status", rows: verifyJoin(verifyRows(0, 1),
			[]rundir.Row{verifyRow(0, 2, verifyBadStatus), verifyRow(0, 3, func(r *rundir.Row) { r.Status = "" })}),
			want: map[Problem]int64{ProblemBadStatus: 2}, bad: 2, testers: 1},
		{name: "seq gaps", rows: verifyJoin(verifyRows(0, 1, 2, 5, 9), verifyRows(1, 2)),
			want: map[Problem]int64{ProblemSeqGap: 6}, testers: 2, ok: true},
		{name: "several problems in one row", rows: []rundir.Row{verifyRow(9, 1, verifyEndsEarly, verifyBadStatus)},
			bad: 1, testers: 1,
			want: map[Problem]int64{ProblemEndBeforeStart: 1, ProblemUnknownTester: 1, ProblemBadStatus: 1}},
		{name: "many chunks", rows: verifyJoin(verifyRows(0, many...), verifyRows(0, 1), verifyRows(1, 1)),
			want: map[Problem]int64{ProblemDuplicate: 1, ProblemSeqGap: 1}, bad: 1, testers: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeVerifyDir(t, tt.rows)
			r, err := Check(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			checkVerifyCounts(t, r, tt.want)
			if r.OK() != tt.ok {
				t.Errorf("OK() = %v, want %v", r.OK(), tt.ok)
			}
			n := int64(len(tt.rows))
			if r.RowsRead != n || r.RowsBad != tt.bad || r.RowsKept != n || r.TestersSeen != tt.testers || r.Fixed {
				t.Errorf("read %d, bad %d, kept %d, testers %d, fixed %v; want %d, %d, %d, %d, false",
					r.RowsRead, r.RowsBad, r.RowsKept, r.TestersSeen, r.Fixed, n, tt.bad, n, tt.testers)
			}
			if _, err := os.Stat(filepath.Join(dir, rundir.SamplesOrig)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("without fix, %s: %v", rundir.SamplesOrig, err)
			}
		})
	}
}

func TestVerifyFix(t *testing.T) {
	t.Parallel()
	good := verifyJoin(verifyRows(0, 1, 2, 3, 4, 5), verifyRows(1, 1, 2, 3))
	tests := []struct {
		name     string
		rows     []rundir.Row
		kept     []rundir.Row
		dropped  map[Problem]int64
		oldOrig  bool // a samples.parquet.orig exists already
		fixed    bool
		secondOK bool
		second   map[Problem]int64 // counts of the second Verify
	}{
		{name: "every fixable class", rows: verifyJoin(good[:3], []rundir.Row{
			verifyRow(0, 6, verifyEndsEarly),
			verifyRow(0, 2),
			verifyRow(7, 1),
			verifyRow(9, 1, verifyEndsEarly), // dropped as end_before_start
			verifyRow(1, 4, verifyBeforeLaunch),
			verifyRow(0, 7, verifyBadStatus),
		}, good[3:]), kept: good, fixed: true, secondOK: true, dropped: map[Problem]int64{
			ProblemEndBeforeStart: 2, ProblemDuplicate: 1, ProblemUnknownTester: 1,
			ProblemOutsideLifetime: 1, ProblemBadStatus: 1}},
		{name: "missing clock rows kept", rows: verifyJoin(good, verifyRows(2, 1, 2, 2)),
			kept: verifyJoin(good, verifyRows(2, 1, 2)), fixed: true,
			dropped: map[Problem]int64{ProblemDuplicate: 1}, second: map[Problem]int64{ProblemMissingClock: 1}},
		{name: "earlier original kept", rows: verifyJoin(good, verifyRows(0, 5)), kept: good, oldOrig: true,
			fixed: true, secondOK: true, dropped: map[Problem]int64{ProblemDuplicate: 1}},
		{name: "seq gaps not fixed", rows: verifyJoin(good, verifyRows(0, 9)), kept: verifyJoin(good, verifyRows(0, 9)),
			secondOK: true, second: map[Problem]int64{ProblemSeqGap: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeVerifyDir(t, tt.rows)
			orig := filepath.Join(dir, rundir.SamplesOrig)
			if tt.oldOrig {
				if err := os.WriteFile(orig, []byte("older"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadFile(filepath.Join(dir, rundir.Samples))
			r, err := Check(dir, true)
			if err != nil {
				t.Fatal(err)
			}
			if r.Fixed != tt.fixed || r.RowsKept != int64(len(tt.kept)) {
				t.Errorf("fixed %v, kept %d; want %v, %d", r.Fixed, r.RowsKept, tt.fixed, len(tt.kept))
			}
			for _, p := range reportOrder {
				if got := r.Problems[p].Dropped; got != tt.dropped[p] {
					t.Errorf("%s: dropped %d, want %d", p, got, tt.dropped[p])
				}
			}
			if got := readVerifyRows(t, dir); !reflect.DeepEqual(got, tt.kept) {
				t.Errorf("rows after the fix:\n got %+v\nwant %+v", got, tt.kept)
			}
			checkVerifyOrig(t, orig, before, tt.oldOrig, tt.fixed)
			r2, err := Check(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			checkVerifyCounts(t, r2, tt.second)
			if r2.OK() != tt.secondOK || r2.RowsRead != int64(len(tt.kept)) {
				t.Errorf("second Verify: OK() %v, read %d; want %v, %d", r2.OK(), r2.RowsRead, tt.secondOK, len(tt.kept))
			}
		})
	}
}

// checkVerifyOrig checks samples.parquet.orig after a fix: the older one if
// there was one, else the original if the file was fixed, else none.
func checkVerifyOrig(t *testing.T, orig string, before []byte, old, fixed bool) {
	t.Helper()
	got, err := os.ReadFile(orig)
	switch {
	case old:
		if string(got) != "older" {
			t.Errorf("the older %s was replaced: %q, %v", rundir.SamplesOrig, got, err)
		}
	case fixed:
		if err != nil || !bytes.Equal(got, before) {
			t.Errorf("%s is not the original (%d bytes, want %d): %v", rundir.SamplesOrig, len(got), len(before), err)
		}
	default:
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("nothing to fix, yet %s: %v", rundir.SamplesOrig, err)
		}
	}
}

func TestVerifyReportFormatAndJSON(t *testing.T) {
	t.Parallel()
	rows := verifyRows(0, 1, 2)
	for range 15 {
		rows = append(rows, verifyRow(0, 2))
	}
	r, err := Check(writeVerifyDir(t, rows), false)
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Problems[ProblemDuplicate]; d.Count != 15 || len(d.Examples) != maxExamples {
		t.Errorf("duplicates: count %d, %d examples; want 15, %d", d.Count, len(d.Examples), maxExamples)
	}
	var out strings.Builder
	if err := r.Format(&out); err != nil {
		t.Fatal(err)
	}
	for _, p := range reportOrder {
		if !strings.Contains(out.String(), string(p)) {
			t.Errorf("no line for %s in\n%s", p, out.String())
		}
	}
	if !strings.Contains(out.String(), "tester 0  seq 2") || !strings.Contains(out.String(), "PROBLEMS") {
		t.Errorf("no example or verdict in\n%s", out.String())
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.RowsRead != 17 || back.Problems[ProblemDuplicate].Count != 15 || back.OK() {
		t.Errorf("JSON round trip: %s", b)
	}
}

func TestVerifyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(dir string) error
	}{
		{name: "no samples", setup: func(dir string) error { return os.Remove(filepath.Join(dir, rundir.Samples)) }},
		{name: "no testers", setup: func(dir string) error { return os.Remove(filepath.Join(dir, rundir.Testers)) }},
		{name: "not parquet", setup: func(dir string) error {
			return os.WriteFile(filepath.Join(dir, rundir.Samples), []byte("not parquet"), 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeVerifyDir(t, verifyRows(0, 1))
			if err := tt.setup(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := Check(dir, true); err == nil {
				t.Error("Verify succeeded")
			}
		})
	}
}

func TestVerifySeqSetFirstMissing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		seqs []uint64
		want uint64
	}{
		{"empty", nil, 1},
		{"zero only", []uint64{0}, 1},
		{"hole", []uint64{1, 2, 4}, 3},
		{"past a page", append(verifySeqRange(1, seqPageBits+3), seqPageBits+5), seqPageBits + 3},
		{"huge stray", []uint64{1, 1 << 62}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s seqSet
			for _, q := range tt.seqs {
				s.add(q)
			}
			if got := s.firstMissing(); got != tt.want {
				t.Errorf("firstMissing = %d, want %d", got, tt.want)
			}
		})
	}
}

// verifySeqRange returns the numbers from..to-1.
func verifySeqRange(from, to uint64) []uint64 {
	var out []uint64
	for q := from; q < to; q++ {
		out = append(out, q)
	}
	return out
}
