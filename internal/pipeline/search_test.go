package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
)

// searchRun is a finished run of about 5 s whose experiment has a search
// key (closed model: 3 testers of 1 client) and whose search.json is
// searchJSON, written by hand.
func searchRun(t *testing.T, searchJSON string) string {
	t.Helper()
	live := t.TempDir()
	run := newFakeRun(t, live, 3)
	run.play(t)
	defer run.sp.Close()
	dir := copySpool(t, live)
	exp := "name: s\nclient:\n  exec: [\"true\"]\nschedule:\n  testers: 3\nsearch:\n  slo: [p99_ms < 1000]\n  min_capacity: 2\n"
	for name, data := range map[string]string{rundir.Experiment: exp, rundir.Search: searchJSON} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The summary's search block is search.json's answer, with the unit of
// the model and the minimum capacity asked; summary.json holds it.
func TestDeriveSearchBlock(t *testing.T) {
	t.Parallel()
	dir := searchRun(t, `{"verdict": "capacity", "capacity": 2, "interval": [2, 3], "breaks_at": 3, "binding": "p99_ms < 1000",
		"precision": 0.5, "calls": 150, "seconds": 5, "why": "capacity 2",
		"steps": [{"step": 1, "load": 2, "seconds": 2}, {"step": 2, "load": 3, "seconds": 3}]}`)
	if _, err := Derive(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := s.Search
	if b == nil || s.SearchRefused != "" || *b.Capacity != 2 || *b.Interval[1] != 3 || b.Unit != analyze.SearchUnitClients || b.Steps != 2 ||
		b.Calls != 150 || b.MinCapacity != 2 || b.BelowMin() {
		t.Fatalf("search block %+v, refused %q", b, s.SearchRefused)
	}
}

// A search.json the run cannot hold (more steps than its seconds, a
// negative load, not JSON) is left out of the summary, which says why.
func TestDeriveSearchRefused(t *testing.T) {
	t.Parallel()
	steps := strings.Repeat(`{"step": 1, "load": 2, "seconds": 0},`, 40)
	for name, tt := range map[string]struct{ json, want string }{
		"steps":    {`{"verdict": "no-data", "interval": [null, null], "precision": 0.05, "steps": [` + strings.TrimSuffix(steps, ",") + `]}`, "40 steps in 0 s: more than the run's"},
		"negative": {`{"verdict": "holds-at-max", "capacity": -4, "interval": [-4, null], "precision": 0.05, "steps": []}`, "not a number above 0"},
		"not json": {`{"verdict": `, "search.json: unexpected end of JSON input"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := searchRun(t, tt.json)
			if _, err := Derive(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			s, err := ReadSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			if s.Search != nil || !strings.Contains(s.SearchRefused, tt.want) {
				t.Errorf("search %+v, refused %q; want refused: %q", s.Search, s.SearchRefused, tt.want)
			}
		})
	}
}

// quanta.csv's step column names the step whose seconds hold each
// quantum, empty outside every step.
func TestDeriveSearchStepColumn(t *testing.T) {
	t.Parallel()
	dir := searchRun(t, `{"verdict": "budget-out", "interval": [null, null], "precision": 0.05, "steps": []}`)
	if _, err := Derive(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSummary(dir)
	if err != nil || s.Search == nil {
		t.Fatalf("summary %+v, %v", s, err)
	}
	t0 := s.OriginNs / 1e9 // the run's first second: its quanta are 1 s from there
	js := fmt.Sprintf(`{"verdict": "capacity", "capacity": 2, "interval": [2, 3], "breaks_at": 3, "precision": 0.5, "seconds": 4,
		"steps": [{"step": 1, "load": 2, "from": %d, "to": %d, "seconds": 2}, {"step": 2, "load": 3, "from": %d, "to": %d, "seconds": 2}]}`,
		t0+1, t0+2, t0+3, t0+4)
	if err := os.WriteFile(filepath.Join(dir, rundir.Search), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Derive(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	got := quantaColumn(t, dir, "step")
	want := []string{"", "1", "1", "2", "2"} // quantum i starts within second t0 + i
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) || slices.ContainsFunc(got[len(want):], func(c string) bool { return c != "" }) {
		t.Errorf("step column %q; want %q then empty", got, want)
	}
}
