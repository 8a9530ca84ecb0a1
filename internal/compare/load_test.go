package compare

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/sample"
)

func TestNewData(t *testing.T) {
	t.Parallel()
	res := &analyze.Result{
		Name: "exp",
		Quanta: []analyze.Quantum{
			{Active: 0, Throughput: 1}, // before the first tester: left out
			{Active: 2, Throughput: 10},
			{Active: 1, Throughput: 20},
		},
		Clients: []analyze.Client{{}, {}},
	}
	res.Summary.Samples.OK = 2
	calls := []sample.Call{
		{Start: 0, End: 1_500_000, Status: sample.OK},       // 1.5 ms
		{Start: 5, End: 9_000_005, Status: sample.Failed},   // not a response time
		{Start: 10, End: 2_000_010, Status: sample.OK},      // 2 ms
		{Start: 20, End: 1_000_020, Status: sample.Timeout}, // nor this
	}
	d := NewData(res, calls)
	if d.Name != "exp" || !slices.Equal(d.Throughput, []float64{10, 20}) || !slices.Equal(d.RTms, []float64{1.5, 2}) {
		t.Errorf("NewData = %+v", d)
	}
	res.Clients = nil // no testers: every quantum counts, as in the analyzer
	if d := NewData(res, calls); len(d.Throughput) != 3 {
		t.Errorf("without testers: %d quanta, want 3", len(d.Throughput))
	}
}

func TestRunsMissingDir(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none")
	if _, err := Runs(missing, missing, Options{}); err == nil {
		t.Fatal("no error for a missing run directory")
	}
}

// TestReservoir checks that the reservoir keeps everything up to its
// capacity and beyond holds a uniform sample: each tenth of the stream
// fills about a tenth of it.
func TestReservoir(t *testing.T) {
	t.Parallel()
	r := newReservoir(100, 1)
	for i := range 50 {
		r.add(float64(i))
	}
	if len(r.values) != 50 || r.values[49] != 49 {
		t.Fatalf("under capacity: %v", r.values)
	}
	r = newReservoir(10_000, 1)
	const n = 1_000_000
	for i := range n {
		r.add(float64(i))
	}
	var deciles [10]int
	for _, v := range r.values {
		deciles[int(v)*10/n]++
	}
	for k, c := range deciles {
		if c < 900 || c > 1100 {
			t.Errorf("decile %d holds %d of 10,000 kept values, want about 1,000 (%v)", k, c, deciles)
		}
	}
}
