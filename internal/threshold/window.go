package threshold

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/stats"
)

// window is a live threshold's window: running sums over the seconds it
// holds and, for a last-N window, those seconds, to take out again as
// they leave it (a run window keeps its sums only).
type window struct {
	keep   bool   // keep the seconds (a last-N window)
	secs   []held // the seconds held, when keep
	n      int    // seconds in the window
	ok     int
	failed int
	load   float64              // Σ load, call·s
	rt     stats.Moments        // the response times' exact figures
	counts []int64              // Σ response-time counts, the analyzer's geometry
	health analyze.TesterHealth // highest health figures so far (a run window)
}

// held is one second in a last-N window.
type held struct {
	t          int64
	ok, failed int
	load       float64
	rt         stats.Moments
	counts     []bucket // its non-zero response-time counts
	health     analyze.TesterHealth
}

// bucket is one non-zero count of a histogram.
type bucket struct {
	index int32
	n     int64
}

// add counts second s, of response-time counts c (nil: none).
func (w *window) add(s Second, c []int64) {
	w.n++
	w.ok += s.OK
	w.failed += s.Failed
	w.load += s.Load
	h := held{t: s.T, ok: s.OK, failed: s.Failed, load: s.Load, health: s.health()}
	if s.RT != nil {
		h.rt = s.RT.Moments
	}
	w.health.Merge(h.health)
	w.rt.Merge(h.rt)
	if c != nil && w.counts == nil {
		w.counts = make([]int64, len(c))
	}
	for i, n := range c {
		if n != 0 {
			w.counts[i] += n
			if w.keep {
				h.counts = append(h.counts, bucket{int32(i), n})
			}
		}
	}
	if w.keep {
		w.secs = append(w.secs, h)
	}
}

// evictBefore takes out the seconds before t (of a last-N window).
func (w *window) evictBefore(t int64) {
	k := 0
	for ; k < len(w.secs) && w.secs[k].t < t; k++ {
		h := w.secs[k]
		w.n--
		w.ok -= h.ok
		w.failed -= h.failed
		w.load -= h.load
		for _, b := range h.counts {
			w.counts[b.index] -= b.n
		}
	}
	if k == 0 {
		return
	}
	w.secs = append(w.secs[:0], w.secs[k:]...)
	w.rt = stats.Moments{} // a minimum or maximum cannot be taken out: sum again
	for _, h := range w.secs {
		w.rt.Merge(h.rt)
	}
}

// figures returns what the window holds.
func (w *window) figures() *figures {
	f := &figures{ok: w.ok, failed: w.failed, okTimed: w.ok, seconds: float64(w.n), loadArea: w.load,
		rt: &stats.Bucket{Moments: w.rt}, health: w.health}
	if w.keep {
		f.health = analyze.TesterHealth{}
		for _, h := range w.secs {
			f.health.Merge(h.health)
		}
	}
	if w.counts == nil {
		return f
	}
	snap := stats.NewRTHist().Export()
	copy(snap.Counts, w.counts)
	f.rt.Hist = hdr.Import(snap)
	return f
}
