package tree

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// MeasureOptions configure the measurement of the tree's upper-level
// constants: the encoded size of one leaf's per-second summary and the cost
// of merging k children's summaries of one second.
type MeasureOptions struct {
	Children        int           // k: summaries merged per quantum
	SamplesPerChild int           // calls in each child's quantum
	TestersPerChild int           // testers behind each child (fairness terms)
	MedianMs        float64       // median response time of the synthetic calls
	Sigma           float64       // log-normal spread of the response times
	Rounds          int           // merges of k children timed; the median is kept
	Distinct        int           // distinct child summaries generated (then reused in turn)
	Seed            uint64        // for the synthetic response times
	MinRound        time.Duration // a round repeats its merge until it lasts this long
}

// Measured are the measured constants: sizes in bytes, costs in ns.
type Measured struct {
	Bench              string  `json:"bench"`
	Children           int     `json:"children"`
	SamplesPerChild    int     `json:"samples_per_child"`
	SummaryBytes       int     `json:"summary_bytes"`          // h: median encoded size of one child's summary
	NonZeroBuckets     int     `json:"nonzero_buckets"`        // median histogram buckets in use per child
	MergeNsPerChild    float64 `json:"merge_ns_per_child"`     // m: decode + add one encoded summary
	HDRMergeNsPerChild float64 `json:"hdr_merge_ns_per_child"` // hdr.Histogram.Merge of one dense child, for comparison
	PercentilesNs      float64 `json:"percentiles_ns"`         // the live view's p50/p90/p99 of a merged second
}

// DefaultMeasure are the options of `diperf bench tree`'s measurement.
func DefaultMeasure() MeasureOptions {
	return MeasureOptions{Children: 64, SamplesPerChild: 100_000, TestersPerChild: 1000, MedianMs: 10,
		Sigma: 1, Rounds: 15, Distinct: 8, Seed: 1, MinRound: 20 * time.Millisecond}
}

// Measure builds o.Distinct synthetic leaf summaries, encodes them, and
// times merging o.Children of them (decode + add) into a parent, the
// library's dense Merge of the same, and the percentiles of the result.
func Measure(o MeasureOptions) (Measured, error) {
	if o.Children < 1 || o.SamplesPerChild < 1 || o.TestersPerChild < 1 || o.Rounds < 1 || o.Distinct < 1 {
		return Measured{}, fmt.Errorf("measure tree: children, samples, testers, rounds and distinct must be positive")
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	enc := make([][]byte, o.Distinct)
	dense := make([]*hdr.Histogram, o.Distinct)
	sizes, buckets := make([]int, o.Distinct), make([]int, o.Distinct)
	for i := range enc {
		s, h := synthLeaf(rng, o)
		dense[i] = h
		enc[i] = s.AppendEncoded(nil)
		sizes[i], buckets[i] = len(enc[i]), nonZero(s.Counts)
	}
	m := Measured{Bench: "tree", Children: o.Children, SamplesPerChild: o.SamplesPerChild,
		SummaryBytes: median(sizes), NonZeroBuckets: median(buckets)}
	var err error
	parent := NewSummary(0)
	m.MergeNsPerChild = timeRounds(o, func() {
		clear(parent.Counts)
		for c := range o.Children {
			if e := parent.MergeEncoded(enc[c%o.Distinct]); e != nil {
				err = e
			}
		}
	}) / float64(o.Children)
	if err != nil {
		return Measured{}, fmt.Errorf("measure tree: %w", err)
	}
	acc := NewHist()
	m.HDRMergeNsPerChild = timeRounds(o, func() {
		acc.Reset()
		for c := range o.Children {
			acc.Merge(dense[c%o.Distinct])
		}
	}) / float64(o.Children)
	m.PercentilesNs = timeRounds(o, func() {
		b := parent.Bucket()
		_, _, _ = b.Percentile(50), b.Percentile(90), b.Percentile(99)
	})
	return m, nil
}

// synthLeaf returns one leaf's summary of a quantum of synthetic calls
// (log-normal response times, 1% failed) and its dense histogram.
func synthLeaf(rng *rand.Rand, o MeasureOptions) (*Summary, *hdr.Histogram) {
	s, h := NewSummary(0), NewHist()
	perTester := make([]float64, o.TestersPerChild)
	mu := math.Log(o.MedianMs * 1e6)
	for i := range o.SamplesPerChild {
		ns := int64(math.Exp(mu + o.Sigma*rng.NormFloat64()))
		stats.RecordRT(h, ns)
		s.Moments.Add(ns)
		if i%100 == 99 {
			s.ByStatus[sample.Failed]++
			continue
		}
		s.ByStatus[sample.OK]++
		perTester[rng.IntN(len(perTester))]++
	}
	s.Testers = uint64(len(perTester))
	for _, x := range perTester {
		s.SumOK += x
		s.SqOK += x * x
	}
	s.SetHist(h)
	return s, h
}

// timeRounds returns the median duration in ns of one call of f, over
// o.Rounds rounds that each repeat f for at least o.MinRound.
func timeRounds(o MeasureOptions, f func()) float64 {
	per := make([]float64, o.Rounds)
	for r := range per {
		n, start := 0, time.Now()
		for n == 0 || time.Since(start) < o.MinRound {
			f()
			n++
		}
		per[r] = float64(time.Since(start).Nanoseconds()) / float64(n)
	}
	return median(per)
}

// nonZero counts the buckets in use.
func nonZero(counts []int64) int {
	n := 0
	for _, c := range counts {
		if c != 0 {
			n++
		}
	}
	return n
}

// median returns the median of xs (the upper one of an even count).
func median[T int | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
