package analyze

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenInput is a seeded run with a known shape: 8 testers ramped 2 s
// apart for 16 s each against a service of capacity 4 calls in flight at
// 100 ms (40 calls/s), so it saturates at a load of 4; 4% of the calls
// fail or time out, and some calls report bytes.
func goldenInput() *Input {
	rng := rand.New(rand.NewPCG(11, 12))
	in := &Input{Name: "golden", Quantum: time.Second, Planned: 9, Lost: 3}
	for i := range 8 {
		tr := tester(i, 2*float64(i), 2*float64(i)+16)
		tr.LatencyMs, tr.OffsetMs, tr.BoundMs = 0.2+0.01*float64(i), float64(i)-4, 0.05
		in.Testers = append(in.Testers, tr)
	}
	active := func(s float64) float64 { // testers started minus testers ended
		ended := 0
		if s >= 16 {
			ended = int((s-16)/2) + 1
		}
		return float64(min(int(s/2)+1, 8) - ended)
	}
	for i := range 8 {
		s := 2 * float64(i)
		for s < 2*float64(i)+16 {
			d := 0.1 * max(1, active(s)/4) * (0.9 + 0.2*rng.Float64())
			st := sample.OK
			switch rng.IntN(50) {
			case 0:
				st = sample.Failed
			case 1:
				st = sample.Timeout
			}
			c := call(int32(i), s, s+d, st)
			c.Bytes = int64(rng.IntN(4)) * 1000
			in.Calls = append(in.Calls, c)
			s += d
		}
	}
	return in
}

// TestSummaryGolden pins summary.json of a known run byte for byte: a
// change in any figure or key shows up here (go test -run Golden -update
// to accept it after checking the diff).
func TestSummaryGolden(t *testing.T) {
	t.Parallel()
	r, err := Compute(goldenInput())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, r)
	got, err := os.ReadFile(filepath.Join(dir, rundir.Summary))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "summary.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("summary.json differs from %s:\n got %s\nwant %s", golden, got, want)
	}
	s := r.Summary
	if !s.Saturation.Saturated || s.Saturation.Load < 3.4 || s.Saturation.Load > 4.6 {
		t.Errorf("saturation %+v, want saturated near a load of 4", s.Saturation)
	}
	if s.Saturation.Throughput < 36 || s.Saturation.Throughput > 44 {
		t.Errorf("saturation throughput %v, want near 40 calls/s", s.Saturation.Throughput)
	}
}
