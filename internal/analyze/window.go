package analyze

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/diperf/diperf/internal/stats"
)

// quantaRT keeps each quantum's response times after the analysis (the
// exact moments and the histogram's non-zero counts, which the histStore
// already held), so that their distribution over any run of quanta can be
// had afterwards: the peak window, the last N seconds (Result.ResponseTimes).
type quantaRT struct {
	mom    []stats.Moments
	packed [][]packedCount
}

// keep returns the response times of quanta [0, n), packing the ones the
// store still held dense.
func (qa *quantaAcc) keep(n int) *quantaRT {
	qa.grow(n - 1)
	k := &quantaRT{mom: append([]stats.Moments(nil), qa.mom[:n]...), packed: make([][]packedCount, n)}
	for q := range n {
		if qa.mom[q].N > 0 {
			k.packed[q] = qa.hists.packedOf(q)
		}
	}
	return k
}

// packedOf returns quantum q's non-zero counts (nil when it has none).
func (s *histStore) packedOf(q int) []packedCount {
	switch {
	case q >= len(s.live):
		return nil
	case s.live[q] != nil:
		return pack(s.live[q])
	}
	return s.packed[q]
}

// RTWindow is the response-time distribution of the successful calls
// completed in a run of quanta; its percentiles are within 1% (the
// analysis' histograms), its count, mean, minimum and maximum exact.
type RTWindow struct {
	m stats.Moments
	h *hdr.Histogram
}

// ResponseTimes returns the distribution of the successful calls completed
// in quanta [from, to) of r (clamped to r's quanta). It is empty for a
// Result not computed by an Accumulator (one built by hand).
func (r *Result) ResponseTimes(from, to int) RTWindow {
	var w RTWindow
	if r.rt == nil {
		return w
	}
	from, to = max(from, 0), min(to, len(r.rt.mom))
	snap := newHist().Export()
	for q := from; q < to; q++ {
		w.m.Merge(r.rt.mom[q])
		for _, pc := range r.rt.packed[q] {
			snap.Counts[pc.index] += pc.count
		}
	}
	if w.m.N > 0 {
		w.h = hdr.Import(snap)
	}
	return w
}

// Stats summarises w as the quanta's RTStats do.
func (w RTWindow) Stats() RTStats { return rtStats(w.m, w.h) }

// PercentileMs is the p-th percentile (0 < p ≤ 100) of w, ms; 0 when w
// is empty.
func (w RTWindow) PercentileMs(p float64) float64 {
	return w.m.PercentileOf(w.h, p)
}

// Bucket is w as a stats.Bucket (its response times only: count, exact
// figures and histogram), for the views that read their figures from one.
func (w RTWindow) Bucket() *stats.Bucket {
	return &stats.Bucket{Moments: w.m, Hist: w.h}
}
