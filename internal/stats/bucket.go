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
	Moments              // the exact figures of the successful calls' response times
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
	b.Moments.Add(ns)
	if b.Hist != nil {
		RecordRT(b.Hist, ns)
	}
}

// AddRTs counts n response times of ns nanoseconds each (of calls
// counted elsewhere).
func (b *Bucket) AddRTs(ns int64, n int) {
	for range n {
		b.AddRT(ns)
	}
}

// Merge adds what o holds to b. o's histogram is merged into b's when b
// keeps one; a histogram of another geometry loses the values outside
// b's range (the count is returned).
func (b *Bucket) Merge(o *Bucket) (dropped int64) {
	b.OK += o.OK
	b.Failed += o.Failed
	b.LoadIntegral += o.LoadIntegral
	b.Moments.Merge(o.Moments)
	if b.Hist != nil && o.Hist != nil {
		dropped = b.Hist.Merge(o.Hist)
	}
	return dropped
}

// Percentile is the p-th percentile (0 < p ≤ 100) of b's response times,
// ms (Moments.PercentileOf of its histogram); 0 when none was counted or
// b keeps no histogram.
func (b *Bucket) Percentile(p float64) float64 { return b.PercentileOf(b.Hist, p) }

// Moments are the exact count, sums, minimum and maximum of a set of
// response times (ns); a histogram beside them gives the percentiles.
// Bucket holds them; the analysis keeps them apart from its histograms,
// which it stores packed.
type Moments struct {
	N          int     // response times counted
	Sum, SumSq float64 // Σd and Σd², ns and ns²
	Min, Max   int64   // the smallest and largest, ns (0 when N is 0)
}

// Add counts a response time of ns nanoseconds.
func (m *Moments) Add(ns int64) {
	if m.N == 0 || ns < m.Min {
		m.Min = ns
	}
	if m.N == 0 || ns > m.Max {
		m.Max = ns
	}
	m.N++
	f := float64(ns)
	m.Sum += f
	m.SumSq += f * f
}

// Merge adds the response times counted in o.
func (m *Moments) Merge(o Moments) {
	if o.N == 0 {
		return
	}
	if m.N == 0 || o.Min < m.Min {
		m.Min = o.Min
	}
	if m.N == 0 || o.Max > m.Max {
		m.Max = o.Max
	}
	m.N += o.N
	m.Sum += o.Sum
	m.SumSq += o.SumSq
}

// nsPerMs converts nanoseconds to the milliseconds the figures are in.
const nsPerMs = 1e6

// Mean is the exact mean response time, ms; 0 when none was counted.
func (m *Moments) Mean() float64 {
	if m.N == 0 {
		return 0
	}
	return m.Sum / float64(m.N) / nsPerMs
}

// StdDev is the population standard deviation of the response times, ms.
func (m *Moments) StdDev() float64 {
	if m.N == 0 {
		return 0
	}
	mean := m.Sum / float64(m.N)
	return math.Sqrt(max(m.SumSq/float64(m.N)-mean*mean, 0)) / nsPerMs
}

// MinMs is the exact smallest response time, ms.
func (m *Moments) MinMs() float64 { return float64(m.Min) / nsPerMs }

// MaxMs is the exact largest response time, ms.
func (m *Moments) MaxMs() float64 { return float64(m.Max) / nsPerMs }

// PercentileOf is the p-th percentile (0 < p ≤ 100) of the response
// times m counts, of which h (µs, NewRTHist) is the histogram, ms: the
// histogram's value (the highest value of the bucket the rank falls in,
// within 1% of the exact one) clamped to the exact minimum and maximum;
// the 100th is the exact maximum. 0 when none was counted or h is nil.
func (m *Moments) PercentileOf(h *hdr.Histogram, p float64) float64 {
	if m.N == 0 || h == nil {
		return 0
	}
	if p >= 100 {
		return m.MaxMs()
	}
	v := float64(h.ValueAtPercentile(p)) * 1000
	return min(max(v, float64(m.Min)), float64(m.Max)) / nsPerMs
}

// RTNanos is a response time of ns nanoseconds as a Bucket counts it:
// within [0, an hour] (RTHighestUs), as the histogram records it.
func RTNanos(ns int64) int64 { return min(max(ns, 0), RTHighestUs*1000) }
