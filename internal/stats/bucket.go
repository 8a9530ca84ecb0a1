package stats

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Bucket is what a stretch of a run holds: its calls by outcome, the
// integral of its offered load, and the response times of its successful
// calls (exact count, sum, sum of squares, minimum and maximum, and a
// histogram of NewRTHist's geometry). Buckets merge, so that a second, a
// quantum, a window and a whole run are one type.
//
// Bucket is the one source of the response-time figures every view
// shows: the dashboard's seconds and totals (internal/live), the live
// thresholds' windows (internal/threshold), the capacity search's seconds
// (internal/search) and the analysis' quanta and report (internal/analyze)
// read their mean, p50, p90, p99 and maximum through Mean, Percentile and
// MaxMs, so that the same calls give the same figures in each.
//
// A Bucket without a histogram (the zero value) keeps the exact figures
// only; NewBucket's keeps the histogram too. Not safe for concurrent use.
type Bucket struct {
	OK           uint64  // successful calls
	Failed       uint64  // failed calls (cancelled ones are not counted)
	LoadIntegral float64 // ∫ calls in flight dt, call·s: the mean load over a span is LoadIntegral / span
	N            int     // response times counted
	Sum, SumSq   float64 // Σd and Σd² of the response times, ns and ns²
	Min, Max     int64   // the smallest and largest response time, ns (0 when N is 0)
	// Hist holds the response times in µs (NewRTHist); nil: not kept.
	Hist *hdr.Histogram
}

// NewBucket returns an empty Bucket that keeps a histogram.
func NewBucket() *Bucket { return &Bucket{Hist: NewRTHist()} }

// AddOK counts a successful call of response time ns nanoseconds.
func (b *Bucket) AddOK(ns int64) {
	b.OK++
	b.AddRT(ns)
}

// AddFailed counts a failed call.
func (b *Bucket) AddFailed() { b.Failed++ }

// AddLoad adds callSeconds (calls in flight × seconds) to the load integral.
func (b *Bucket) AddLoad(callSeconds float64) { b.LoadIntegral += callSeconds }

// AddRT counts a response time of ns nanoseconds (of a call counted
// elsewhere): the histogram, if b keeps one, records it in µs.
func (b *Bucket) AddRT(ns int64) {
	if b.N == 0 || ns < b.Min {
		b.Min = ns
	}
	if b.N == 0 || ns > b.Max {
		b.Max = ns
	}
	b.N++
	f := float64(ns)
	b.Sum += f
	b.SumSq += f * f
	if b.Hist != nil {
		RecordRT(b.Hist, ns)
	}
}

// Merge adds what o holds to b. o's histogram is merged into b's when b
// keeps one; a histogram of another geometry loses the values outside
// b's range (the count is returned).
func (b *Bucket) Merge(o *Bucket) (dropped int64) {
	b.OK += o.OK
	b.Failed += o.Failed
	b.LoadIntegral += o.LoadIntegral
	b.MergeRT(o)
	if b.Hist != nil && o.Hist != nil {
		dropped = b.Hist.Merge(o.Hist)
	}
	return dropped
}

// MergeRT adds o's exact response-time figures (count, sums, minimum and
// maximum) to b, not its histogram nor its calls.
func (b *Bucket) MergeRT(o *Bucket) {
	if o.N == 0 {
		return
	}
	if b.N == 0 || o.Min < b.Min {
		b.Min = o.Min
	}
	if b.N == 0 || o.Max > b.Max {
		b.Max = o.Max
	}
	b.N += o.N
	b.Sum += o.Sum
	b.SumSq += o.SumSq
}

// nsPerMs converts the Bucket's nanoseconds to the milliseconds it shows.
const nsPerMs = 1e6

// Mean is the exact mean response time, ms; 0 when none was counted.
func (b *Bucket) Mean() float64 {
	if b.N == 0 {
		return 0
	}
	return b.Sum / float64(b.N) / nsPerMs
}

// StdDev is the population standard deviation of the response times, ms.
func (b *Bucket) StdDev() float64 {
	if b.N == 0 {
		return 0
	}
	mean := b.Sum / float64(b.N)
	return math.Sqrt(max(b.SumSq/float64(b.N)-mean*mean, 0)) / nsPerMs
}

// MinMs and MaxMs are the exact smallest and largest response time, ms.
func (b *Bucket) MinMs() float64 { return float64(b.Min) / nsPerMs }

// MaxMs is the exact largest response time, ms.
func (b *Bucket) MaxMs() float64 { return float64(b.Max) / nsPerMs }

// Percentile is the p-th percentile (0 < p ≤ 100) of the response times,
// ms: the histogram's value (the highest value of the bucket the rank
// falls in, within 1% of the exact one) clamped to the exact minimum and
// maximum. 0 when none was counted or b keeps no histogram.
func (b *Bucket) Percentile(p float64) float64 {
	if b.N == 0 || b.Hist == nil {
		return 0
	}
	v := float64(b.Hist.ValueAtPercentile(p)) * 1000
	return min(max(v, float64(b.Min)), float64(b.Max)) / nsPerMs
}

// RTNanos is a response time of ns nanoseconds as a Bucket counts it:
// within [0, an hour] (RTHighestUs), as the histogram records it.
func RTNanos(ns int64) int64 { return min(max(ns, 0), RTHighestUs*1000) }
