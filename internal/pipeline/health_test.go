package pipeline

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// healthRunDir writes a run directory of two testers from t0 + 1 s for
// 8 s, each making back-to-back calls of 100 ms, with the threshold
// tester_cpu_pct < 80 and the testers' health: both at 10% of their CPU,
// but 97% from second 5 after t0 on.
func healthRunDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	e := experiment.Default()
	e.Client.Exec = []string{"true"}
	e.Schedule.TesterDuration = experiment.Duration(8 * time.Second)
	e.Thresholds = []experiment.Threshold{{Check: "tester_cpu_pct < 80"}}
	y, err := e.Marshal()
	if err == nil {
		err = rundir.Create(dir)
	}
	if err == nil {
		err = rundir.WriteBytes(dir, rundir.Experiment, y)
	}
	if err != nil {
		t.Fatal(err)
	}
	var recs []*rundir.TesterRecord
	var rows []rundir.Row
	var health []sample.Health
	start := t0 + 1e9
	for i := range 2 {
		id := "h:" + string(rune('1'+i))
		recs = append(recs, &rundir.TesterRecord{Slot: i, ID: id, LaunchNs: t0, StartNs: start, StopNs: start + 8e9, Sent: 80, Received: 80,
			Syncs: []clock.Record{{LocalNs: start, RTTNs: 1e5, BoundNs: 5e4}}})
		for k := range int64(80) {
			s := start + k*1e8
			rows = append(rows, rundir.Row{TesterID: id, Seq: k + 1, StartNs: s, EndNs: s + 1e8, LocalStartNs: s, Status: "ok"})
		}
		for s := start / 1e9; s < start/1e9+8; s++ {
			h := sample.Health{Slot: i, T: s, CPUPct: 10, CPUCores: 1, HostBusyPct: 20, HostStealPct: 0, LagMeanMs: 0.2, LagMaxMs: 1, Starts: 10, FDs: 9, FDLimit: 1024}
			if s >= t0/1e9+5 {
				h.CPUPct = 97
			}
			health = append(health, h)
		}
	}
	err = rundir.WriteTesters(dir, recs)
	if err == nil {
		err = rundir.WriteSampleRows(dir, func(put func([]rundir.Row) error) error { return put(rows) })
	}
	if err == nil {
		err = rundir.WriteHealth(dir, health)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// quantaColumn reads one column of dir's quanta.csv, by header.
func quantaColumn(t *testing.T, dir, name string) []string {
	t.Helper()
	b, err := os.ReadFile(rundir.Path(dir, rundir.Quanta))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("quanta.csv: %d records, %v", len(recs), err)
	}
	col := -1
	for i, h := range recs[0] {
		if h == name {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("quanta.csv has no %s column: %v", name, recs[0])
	}
	var out []string
	for _, r := range recs[1:] {
		out = append(out, r[col])
	}
	return out
}

// Derive marks the quanta whose testers were starved in quanta.csv and
// summary.json, and checks the health thresholds on health.csv.
func TestDeriveTesterBound(t *testing.T) {
	dir := healthRunDir(t)
	res, err := Derive(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bound := quantaColumn(t, dir, "tester_bound")
	// The quanta start at the testers' start, t0 + 1 s: seconds 5-8 are quanta 4-7.
	want := []string{"", "", "", "", "tester CPU 97% (tester 0, 1)", "tester CPU 97% (tester 0, 1)", "tester CPU 97% (tester 0, 1)", "tester CPU 97% (tester 0, 1)"}
	if strings.Join(bound, "|") != strings.Join(want, "|") {
		t.Errorf("quanta.csv tester_bound %q, want %q", bound, want)
	}
	if s := res.Summary.Testers; s.HealthQuanta != 8 || s.BoundQuanta != 4 {
		t.Errorf("summary: %d quanta with health, %d tester-bound; want 8 and 4", s.HealthQuanta, s.BoundQuanta)
	}
	ths, err := ReadThresholds(dir)
	if err != nil || len(ths) != 1 || ths[0].Passed || ths[0].Observed == nil || *ths[0].Observed != 97 {
		t.Errorf("thresholds %+v (%v); want tester_cpu_pct < 80 failed at 97", ths, err)
	}
}

// A run without health.csv analyzes as before, saying nothing of its
// testers; a health.csv that cannot be read is said on progress and the
// analysis goes on without it.
func TestDeriveHealthMissingOrMalformed(t *testing.T) {
	for name, content := range map[string]string{"missing": "", "malformed": "slot,t,cpu_pct\n0,1700000002,lots\n"} {
		t.Run(name, func(t *testing.T) {
			dir := healthRunDir(t)
			err := os.Remove(rundir.Path(dir, rundir.Health))
			if err == nil && content != "" {
				err = os.WriteFile(rundir.Path(dir, rundir.Health), []byte(content), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			var progress bytes.Buffer
			res, err := Derive(dir, Options{Progress: &progress})
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range quantaColumn(t, dir, "tester_bound") {
				if b != "" {
					t.Errorf("quantum %d: tester_bound %q without health", i, b)
				}
			}
			said := strings.Contains(progress.String(), "warning: the testers' health is left out")
			if s := res.Summary.Testers; s.HealthQuanta != 0 || said != (name == "malformed") {
				t.Errorf("%d quanta with health, progress %q", s.HealthQuanta, progress.String())
			}
			ths, err := ReadThresholds(dir)
			if err != nil || len(ths) != 1 || ths[0].Passed || ths[0].Observed != nil {
				t.Errorf("thresholds %+v (%v); want tester_cpu_pct < 80 with no data, not passed", ths, err)
			}
		})
	}
}
