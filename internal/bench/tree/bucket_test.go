package tree

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// A tree's merged summary reads as the stats.Bucket of the same calls
// does: counts, mean and percentiles alike.
func TestSummaryBucket(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s, want := NewSummary(0), stats.NewBucket()
	for i := range 3000 {
		ns := 1_000_000 + rng.Int64N(30_000_000)
		switch {
		case i%100 == 0:
			s.ByStatus[sample.Failed]++
			want.AddFailed()
			continue
		case i%150 == 1:
			s.ByStatus[sample.Cancelled]++
			continue
		}
		s.ByStatus[sample.OK]++
		s.Moments.Add(ns)
		want.AddOK(ns)
	}
	s.SetHist(want.Hist)
	got := NewSummary(0)
	if err := got.MergeEncoded(s.AppendEncoded(nil)); err != nil {
		t.Fatal(err)
	}
	b := got.Bucket()
	if b.OK != want.OK || b.Failed != want.Failed || b.Mean() != want.Mean() || b.MaxMs() != want.MaxMs() {
		t.Errorf("summary's bucket ok %d failed %d mean %v max %v; want %d %d %v %v",
			b.OK, b.Failed, b.Mean(), b.MaxMs(), want.OK, want.Failed, want.Mean(), want.MaxMs())
	}
	for _, p := range []float64{50, 90, 99} {
		if b.Percentile(p) != want.Percentile(p) {
			t.Errorf("p%g: summary %v, bucket %v", p, b.Percentile(p), want.Percentile(p))
		}
	}
}

// A summary that says it counts more response times than any run makes
// (a corrupt or hostile child) is refused, not merged.
func TestSummaryCountBounded(t *testing.T) {
	s := NewSummary(0)
	s.Moments.Add(1_000_000)
	s.N = 1 << 50
	got := NewSummary(0)
	if err := got.MergeEncoded(s.AppendEncoded(nil)); !errors.Is(err, errSummary) || got.N != 0 {
		t.Errorf("merging a summary of 2^50 response times: %v, n %d; want refused", err, got.N)
	}
}
