package tree

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

func small() MeasureOptions {
	o := DefaultMeasure()
	o.Children, o.SamplesPerChild, o.TestersPerChild, o.Rounds, o.Distinct, o.MinRound = 3, 2000, 10, 1, 3, 0
	return o
}

// TestMergeEncodedEqualsDenseMerge: merging encoded children gives the
// same counts, moments and percentiles as merging them in memory, and the
// same histogram as the library's own Merge.
func TestMergeEncodedEqualsDenseMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	want, got, hist := NewSummary(0), NewSummary(0), NewHist()
	for range 3 {
		s, h := synthLeaf(rng, small())
		want.Merge(s)
		hist.Merge(h)
		if err := got.MergeEncoded(s.AppendEncoded(nil)); err != nil {
			t.Fatal(err)
		}
	}
	if got.N != 6000 || got.ByStatus[sample.OK] != 5940 || got.ByStatus[sample.Failed] != 60 || got.Testers != 30 {
		t.Fatalf("merged: n %d, by status %v, testers %d", got.N, got.ByStatus, got.Testers)
	}
	if got.Sum != want.Sum || got.SumSq != want.SumSq || got.Min != want.Min || got.Max != want.Max {
		t.Fatalf("moments differ: %+v vs %+v", got, want)
	}
	if !got.Hist().Equals(hist) || got.Hist().ValueAtPercentile(99) != hist.ValueAtPercentile(99) {
		t.Fatal("merged histogram differs from hdr's Merge")
	}
	if j := got.Jain(); j <= 0.5 || j > 1 {
		t.Fatalf("Jain index %g of uniformly spread calls", j)
	}
}

func TestMergeEncodedRefusesBadInput(t *testing.T) {
	s, _ := synthLeaf(rand.New(rand.NewPCG(1, 2)), small())
	b := s.AppendEncoded(nil)
	for name, in := range map[string][]byte{
		"truncated": b[:len(b)-1],
		"trailing":  append(append([]byte{}, b...), 0),
		"version":   append([]byte{9}, b[1:]...),
	} {
		if err := NewSummary(0).MergeEncoded(in); !errors.Is(err, errSummary) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := NewSummary(7).MergeEncoded(b); !errors.Is(err, errSummary) {
		t.Errorf("other quantum: %v", err)
	}
}

func TestMeasure(t *testing.T) {
	m, err := Measure(small())
	if err != nil {
		t.Fatal(err)
	}
	if m.SummaryBytes < 100 || m.NonZeroBuckets < 50 || m.MergeNsPerChild <= 0 || m.HDRMergeNsPerChild <= 0 {
		t.Fatalf("measured %+v", m)
	}
}

// BenchmarkMergeEncoded merges 64 one-second leaf summaries of 100,000
// calls each (go test -bench MergeEncoded ./internal/bench/tree).
func BenchmarkMergeEncoded(b *testing.B) {
	o := DefaultMeasure()
	rng := rand.New(rand.NewPCG(1, 2))
	enc := make([][]byte, o.Distinct)
	for i := range enc {
		s, _ := synthLeaf(rng, o)
		enc[i] = s.AppendEncoded(nil)
	}
	parent := NewSummary(0)
	b.ReportMetric(float64(len(enc[0])), "summary_bytes")
	for b.Loop() {
		clear(parent.Counts)
		for c := range o.Children {
			if err := parent.MergeEncoded(enc[c%len(enc)]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
