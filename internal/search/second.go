package search

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/stats"
)

// Second is one second of the run's timeline as the controller's live
// aggregates have it when the second is final.
type Second struct {
	T      int64         // the second's start, Unix seconds (0: unknown); the step's From/To
	OK     uint64        // successful calls ended in it
	Failed uint64        // failed calls ended in it
	RT     *stats.Bucket // the successful calls' response times, with their histogram (µs, stats.NewRTHist); nil: none
	// Offered is the load asked of the testers over the second (open
	// model: calls/s); 0 when not known (closed model).
	Offered float64
	// TesterBound says why the testers were the limit in the second
	// (issue 22's health); "" when they were not.
	TesterBound string
	// Stale says the second began before the step's load (or the end of
	// its rest) took effect: it holds another load's calls. It is counted
	// in the step's seconds, refused, and not measured.
	Stale bool
}

// calls is every call ended in the second.
func (s Second) calls() uint64 { return s.OK + s.Failed }

// hist is the second's histogram (nil: none).
func (s Second) hist() *hdr.Histogram {
	if s.RT == nil {
		return nil
	}
	return s.RT.Hist
}

// histCount is the calls of the second's histogram.
func (s Second) histCount() uint64 {
	if s.hist() == nil {
		return 0
	}
	return uint64(max(s.RT.Hist.TotalCount(), 0))
}

// refused says why a second cannot be measured ("" when it can): a
// histogram of more calls than the second's successful ones, or a
// histogram of another geometry, or counts no run can reach.
func (s Second) refused() string {
	switch {
	case s.Stale:
		return "another load's second: it began before the step's load took effect"
	case s.histCount() > s.OK:
		return "histogram holds more calls than the second's successful ones"
	case s.RT != nil && uint64(max(s.RT.N, 0)) != s.histCount():
		return "histogram and exact response-time figures count different calls"
	case s.hist() != nil && (s.RT.Hist.LowestTrackableValue() != stats.RTLowestUs || s.RT.Hist.SignificantFigures() != stats.RTDigits):
		return "histogram not of the response-time geometry"
	case s.OK > 1e9 || s.Failed > 1e9:
		return "more than 1e9 calls in a second"
	case math.IsNaN(s.Offered) || math.IsInf(s.Offered, 0) || s.Offered < 0:
		return "offered load not a finite number ≥ 0"
	}
	return ""
}
