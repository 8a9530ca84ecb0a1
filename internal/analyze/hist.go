package analyze

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/stats"
)

// Response times go into HDR histograms of stats' geometry (stats.NewRTHist:
// microseconds, 1 µs to an hour, 2 significant digits); percentiles are
// clamped to the exact minimum and maximum, which moments keep.

// newHist returns an empty response-time histogram.
func newHist() *hdr.Histogram { return stats.NewRTHist() }

// record adds a duration of ns nanoseconds to h.
func record(h *hdr.Histogram, ns int64) { stats.RecordRT(h, ns) }

// moments are the exact count, sums, minimum and maximum of a set of
// durations (ns); the histogram beside them gives the percentiles.
type moments struct {
	n        int
	sum, sq  float64 // Σd and Σd², ns and ns²
	min, max int64
}

// add counts one duration.
func (m *moments) add(ns int64) {
	if m.n == 0 || ns < m.min {
		m.min = ns
	}
	if m.n == 0 || ns > m.max {
		m.max = ns
	}
	m.n++
	f := float64(ns)
	m.sum += f
	m.sq += f * f
}

// merge adds the durations counted in o.
func (m *moments) merge(o moments) {
	if o.n == 0 {
		return
	}
	if m.n == 0 || o.min < m.min {
		m.min = o.min
	}
	if m.n == 0 || o.max > m.max {
		m.max = o.max
	}
	m.n += o.n
	m.sum += o.sum
	m.sq += o.sq
}

// rtStats summarises m and its histogram h in milliseconds; h may be nil
// when m is empty.
func rtStats(m moments, h *hdr.Histogram) RTStats {
	if m.n == 0 {
		return RTStats{}
	}
	mean := m.sum / float64(m.n)
	variance := max(m.sq/float64(m.n)-mean*mean, 0)
	return RTStats{
		N:      m.n,
		Min:    float64(m.min) / nsPerMs,
		Median: m.percentileMs(h, 50),
		Mean:   mean / nsPerMs,
		P90:    m.percentileMs(h, 90),
		P99:    m.percentileMs(h, 99),
		Max:    float64(m.max) / nsPerMs,
		StdDev: math.Sqrt(variance) / nsPerMs,
	}
}

// percentileMs is the p-th percentile of h in ms, clamped to the exact
// range of m.
func (m *moments) percentileMs(h *hdr.Histogram, p float64) float64 {
	if m.n == 0 || h == nil {
		return 0
	}
	v := float64(h.ValueAtPercentile(p)) * 1000
	return min(max(v, float64(m.min)), float64(m.max)) / nsPerMs
}
