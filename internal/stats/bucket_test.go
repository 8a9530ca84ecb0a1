package stats

import (
	"math/rand/v2"
	"testing"
)

// Two buckets merged hold what one bucket of every call holds: counts,
// load, exact figures and percentiles alike.
func TestBucketMerge(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	all, a, b := NewBucket(), NewBucket(), NewBucket()
	for i := range 5000 {
		ns := 1_000 + rng.Int64N(50_000_000)
		part := a
		if i%3 == 0 {
			part = b
		}
		for _, x := range []*Bucket{all, part} {
			if i%100 == 0 {
				x.AddFailed()
			} else {
				x.AddOK(ns)
			}
			x.AddLoad(0.25)
		}
	}
	if dropped := a.Merge(b); dropped != 0 {
		t.Fatalf("merge dropped %d values", dropped)
	}
	if a.OK != all.OK || a.Failed != all.Failed || a.N != all.N || a.Min != all.Min || a.Max != all.Max ||
		a.Sum != all.Sum || a.LoadIntegral != all.LoadIntegral {
		t.Errorf("merged %+v, want %+v", a.Moments, all.Moments)
	}
	for _, p := range []float64{50, 90, 99, 100} {
		if a.Percentile(p) != all.Percentile(p) {
			t.Errorf("p%g: merged %v, one bucket %v", p, a.Percentile(p), all.Percentile(p))
		}
	}
}

// A percentile is the histogram's, within 1%, but never beyond the exact
// minimum and maximum; the mean and the maximum are exact.
func TestBucketFigures(t *testing.T) {
	t.Parallel()
	b := NewBucket()
	b.AddRTs(12_345_678, 10) // 12.345678 ms: its histogram bucket reaches past it
	if got := b.Percentile(99); got != 12.345678 {
		t.Errorf("p99 of one value: %v, want it exactly (12.345678)", got)
	}
	if b.Mean() != 12.345678 || b.MaxMs() != 12.345678 || b.MinMs() != 12.345678 || b.StdDev() != 0 {
		t.Errorf("mean %v, max %v, min %v, stddev %v; want 12.345678 ×3 and 0", b.Mean(), b.MaxMs(), b.MinMs(), b.StdDev())
	}
	b.AddRTs(1_000_000, 90) // 1 ms
	if got := b.Percentile(50); got < 1 || got > 1.01 {
		t.Errorf("p50: %v, want 1 ms within 1%%", got)
	}
	if got, want := b.Mean(), float64(10*12_345_678+90*1_000_000)/100/1e6; got != want {
		t.Errorf("mean %v, want %v (exact)", got, want)
	}
	var none Bucket // no histogram: exact figures only
	none.AddOK(5_000_000)
	if none.Percentile(50) != 0 || none.Mean() != 5 || none.OK != 1 {
		t.Errorf("a bucket without histogram: p50 %v, mean %v, ok %d; want 0, 5, 1", none.Percentile(50), none.Mean(), none.OK)
	}
	if got := RTNanos(-5); got != 0 {
		t.Errorf("RTNanos(-5) = %d, want 0", got)
	}
	if got := RTNanos(1 << 62); got != RTHighestUs*1000 {
		t.Errorf("RTNanos(2^62) = %d, want an hour", got)
	}
}
