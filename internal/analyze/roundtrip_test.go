package analyze

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// TestExtrasSurviveSamplesFile analyses a run's calls as the controller
// holds them and as `diperf analyze` reads them back from samples.parquet:
// the extras and HTTP phase series and summaries are the same. The bound
// on keys is that of the file's columns.
func TestExtrasSurviveSamplesFile(t *testing.T) {
	t.Parallel()
	if MaxExtraKeys != rundir.MaxExtraColumns {
		t.Fatalf("the analysis follows %d extras keys, samples.parquet holds %d columns", MaxExtraKeys, rundir.MaxExtraColumns)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	testers := []Tester{tester(0, 0, 5), tester(1, 0, 5)}
	var calls []sample.Call
	var rows []rundir.Row
	for i := range 2000 {
		from := 5 * rng.Float64()
		c := call(int32(i%2), from, from+0.05*rng.Float64(), sample.OK)
		if rng.IntN(2) == 0 {
			c.Extras = append(c.Extras, sample.Extra{Key: "files", Value: float64(rng.IntN(4))})
		}
		if rng.IntN(3) != 0 {
			c.Extras = append(c.Extras, sample.Extra{Key: "mb", Value: rng.Float64() * 100})
		}
		if rng.IntN(4) != 0 {
			c.Phases = sample.Phases{Connect: rng.Int64N(2) * rng.Int64N(1e6), FirstByte: 1 + rng.Int64N(4e7)}
		}
		calls = append(calls, c)
		rows = append(rows, rundir.Row{Tester: c.Tester, Seq: int64(i), StartNs: c.Start, EndNs: c.End, LocalStartNs: c.Start,
			Status: "ok", ConnectNs: c.Phases.Connect, FirstByteNs: c.Phases.FirstByte, Extras: c.Extras})
	}
	want := mustCompute(t, 500*time.Millisecond, testers, calls)
	dir := t.TempDir()
	err := rundir.WriteSampleRowsExtras(dir, []string{"files", "mb"}, func(put func([]rundir.Row) error) error { return put(rows) })
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewParallel(Config{Name: "t", Quantum: 500 * time.Millisecond, Planned: 2, Testers: testers}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := rundir.StreamCalls(dir, nil, p.Add); err != nil {
		t.Fatal(err)
	}
	got, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	if want.Summary.Extras["mb"].Calls == 0 || want.Summary.HTTPPhases == nil {
		t.Fatalf("the run has no extras or phases to compare: %+v", want.Summary)
	}
	for _, d := range []string{
		firstDiff(got.Summary.Extras, want.Summary.Extras, "extras"),
		firstDiff(got.Summary.HTTPPhases, want.Summary.HTTPPhases, "http_phases_ms"),
		firstDiff(got.Quanta, want.Quanta, "quanta"),
	} {
		if d != "" {
			t.Errorf("analysed from samples.parquet, differs at %s", d)
		}
	}
}
