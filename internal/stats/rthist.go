package stats

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// Response times go into HDR histograms in microseconds, from 1 µs to an
// hour, with 2 significant digits: any percentile is within 1% of the
// exact value. Longer calls count as an hour in the histogram only. The
// analyzer, the controller's live aggregates, threshold windows and the
// controller tree's summaries all use this one geometry, so that their
// histograms merge and their percentiles agree.
const (
	RTLowestUs  = 1
	RTHighestUs = 3_600_000_000
	RTDigits    = 2
)

// NewRTHist returns an empty response-time histogram of that geometry.
func NewRTHist() *hdr.Histogram { return hdr.New(RTLowestUs, RTHighestUs, RTDigits) }

// RTMicros is a response time of ns nanoseconds as the histograms record
// it: in microseconds, rounded, within [0, RTHighestUs].
func RTMicros(ns int64) int64 { return min(max((ns+500)/1000, 0), RTHighestUs) }

// RecordRT adds a response time of ns nanoseconds to h (a histogram of
// NewRTHist's range or wider).
func RecordRT(h *hdr.Histogram, ns int64) {
	_ = h.RecordValue(RTMicros(ns)) // in range by construction
}
