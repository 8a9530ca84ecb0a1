package analyze

import (
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

// rtStats summarises m and its histogram h in milliseconds, by the
// figures of stats.Moments (stats.Bucket's: the one source of the mean and
// percentiles every view shows); h may be nil when m is empty.
func rtStats(m stats.Moments, h *hdr.Histogram) RTStats {
	if m.N == 0 {
		return RTStats{}
	}
	return RTStats{
		N:      m.N,
		Min:    m.MinMs(),
		Median: m.PercentileOf(h, 50),
		Mean:   m.Mean(),
		P90:    m.PercentileOf(h, 90),
		P99:    m.PercentileOf(h, 99),
		Max:    m.MaxMs(),
		StdDev: m.StdDev(),
	}
}
