package pipeline

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
)

// impossibleRun writes a run directory as a diperf that took impossible
// times and counts from a tester left it: one tester, launched at t0,
// with 10 honest one-second calls, one call ending at 2^62 ns, one
// starting at −2^62 ns, one of client 7 (the run had one client per
// tester) and one ending before it starts; edit changes its tester
// record first.
func impossibleRun(t *testing.T, edit func(r *rundir.TesterRecord)) (string, *experiment.Experiment) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := rundir.Create(dir); err != nil {
		t.Fatal(err)
	}
	e := experiment.Default()
	e.Client.Exec = []string{"true"}
	e.Schedule.TesterDuration = experiment.Duration(15 * time.Second)
	y, err := e.Marshal()
	if err == nil {
		err = rundir.WriteBytes(dir, rundir.Experiment, y)
	}
	if err != nil {
		t.Fatal(err)
	}
	start := t0 + 1e9
	rec := &rundir.TesterRecord{ID: "liar:1", LaunchNs: t0, StartNs: start, StopNs: start + 12e9, Sent: 12, Received: 12,
		Syncs: []clock.Record{{LocalNs: start, RTTNs: 1e5, BoundNs: 5e4}}}
	edit(rec)
	if err := rundir.WriteTesters(dir, []*rundir.TesterRecord{rec}); err != nil {
		t.Fatal(err)
	}
	var rows []rundir.Row
	for i := range int64(10) {
		s := start + i*1e9
		rows = append(rows, rundir.Row{TesterID: "liar:1", Seq: i + 1, StartNs: s, EndNs: s + 5e8, LocalStartNs: s, Status: "ok"})
	}
	rows = append(rows,
		rundir.Row{TesterID: "liar:1", Seq: 11, StartNs: start, EndNs: 1 << 62, LocalStartNs: start, Status: "ok"},
		rundir.Row{TesterID: "liar:1", Seq: 12, StartNs: -1 << 62, EndNs: start, LocalStartNs: -1 << 62, Status: "ok"},
		rundir.Row{TesterID: "liar:1", Seq: 13, StartNs: start, EndNs: start + 1e6, LocalStartNs: start, Status: "ok", Client: 7},
		rundir.Row{TesterID: "liar:1", Seq: 14, StartNs: start, EndNs: start - 1e6, LocalStartNs: start, Status: "ok"})
	if err := rundir.WriteSampleRows(dir, func(put func([]rundir.Row) error) error { return put(rows) }); err != nil {
		t.Fatal(err)
	}
	return dir, &e
}

// TestImpossibleRowsAreRefusedByTheAnalysis analyzes run directories
// holding what a tester lied (issue 20, row 3): a stop at 2^62 ns, calls
// at ±2^62 ns, counts of 2^63 and 2^64−4. The analysis completes with as
// many quanta as the run's real span has (it ran out of memory, or could
// not read testers.csv, or failed on the malformed calls), counts the two
// calls outside the run's span, the two malformed ones and the tester's
// times cut to it, refuses the impossible counts, and keeps the 10
// honest calls.
func TestImpossibleRowsAreRefusedByTheAnalysis(t *testing.T) {
	cases := map[string]struct {
		edit     func(r *rundir.TesterRecord)
		messages uint64
	}{
		"times": {edit: func(r *rundir.TesterRecord) { r.StopNs = 1 << 62 }},
		"counts": {edit: func(r *rundir.TesterRecord) {
			r.Sent, r.UDP, r.UDPLost = 1<<63, true, math.MaxUint64-3
		}, messages: 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir, e := impossibleRun(t, c.edit)
			res, err := Derive(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			if s.Samples.Total != 10 || s.Samples.Lost < 0 || s.Samples.Lost > 12 {
				t.Errorf("summary: %d samples, %d lost; want the 10 honest ones, at most 12 lost", s.Samples.Total, s.Samples.Lost)
			}
			if r := s.Refused; r == nil || r.OutsideSpan != 2 || r.Malformed != 2 || r.Messages != c.messages || len(r.Testers) != 1 || r.Testers[0].OutsideSpan != 2 {
				t.Fatalf("summary refused %+v; want 2 calls outside the span, 2 malformed, %d counts refused, of tester 0", r, c.messages)
			}
			if html, err := os.ReadFile(rundir.Path(dir, rundir.Report)); err != nil || !bytes.Contains(html, []byte("outside the run")) {
				t.Errorf("the report does not say what was refused (%v)", err)
			}
			if name == "times" && s.Refused.TestersCut != 1 {
				t.Errorf("%d testers cut to the span, want 1", s.Refused.TestersCut)
			}
			if most := int(spanLength(e)/time.Second) + 1; len(res.Quanta) > most {
				t.Errorf("%d quanta of 1 s; the run can span at most %d", len(res.Quanta), most)
			}
		})
	}
}
