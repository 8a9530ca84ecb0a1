package live

import (
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/stats"
)

// final is a second made final, with its histogram, for the hooks.
type final struct {
	s Second
	h *hdr.Histogram
}

// Tick brings r up to now: it notes how many testers are running in the
// current second and makes final every second that ended Lag ago. The
// controller calls it every second.
func (r *Run) Tick() {
	if r == nil {
		return
	}
	now := r.now()
	r.mu.Lock()
	r.row(now.Unix()).Active = r.running()
	done := r.finalize(now.Add(-r.lagOf()).Unix())
	hooks := r.hooks
	r.mu.Unlock()
	fire(hooks, done)
}

// End makes every second final and marks the run ended; report is the
// path of its report (may be empty, e.g. when the run failed).
func (r *Run) End(report string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	done := r.finalize(r.t0 + int64(len(r.rows)))
	r.state, r.report = "ended", report
	hooks := r.hooks
	r.mu.Unlock()
	fire(hooks, done)
}

// SetReport records where the run's report is, once it is written.
func (r *Run) SetReport(path string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.report = path
	r.mu.Unlock()
}

func fire(hooks []func(Second, *hdr.Histogram), done []final) {
	for _, d := range done {
		for _, f := range hooks {
			f(d.s, d.h)
		}
	}
}

// finalize makes final every second before until, returning them with
// their histograms (an empty one for a second no call ended in). Called
// with r.mu held.
func (r *Run) finalize(until int64) []final {
	var out []final
	for ; r.final < until; r.final++ {
		row := r.row(r.final)
		h := r.open[r.final]
		delete(r.open, r.final)
		if h == nil {
			h = stats.NewRTHist()
		}
		row.fill(h)
		row.Final = true
		out = append(out, final{*row, h})
	}
	return out
}

// fill sets s's response-time figures from its histogram h (µs).
func (s *Second) fill(h *hdr.Histogram) {
	if s.OK == 0 {
		return
	}
	s.MeanMs = s.rtSum / float64(s.OK)
	if h.TotalCount() == 0 {
		return
	}
	q := func(p float64) float64 { return math.Min(float64(h.ValueAtQuantile(p))/1e3, s.MaxMs) }
	s.P50Ms, s.P90Ms, s.P99Ms = q(50), q(90), q(99)
}

// SetLag sets how long after a second ends its figures stay provisional
// (default Lag), for a run whose testers ship their samples often enough
// that a shorter wait misses none: a capacity search, whose every step
// waits for its last second to be final.
func (r *Run) SetLag(d time.Duration) {
	if r == nil || d <= 0 {
		return
	}
	r.mu.Lock()
	r.lag = d
	r.mu.Unlock()
}

// lagOf is how long a second stays provisional. Called with r.mu held.
func (r *Run) lagOf() time.Duration {
	if r.lag > 0 {
		return r.lag
	}
	return Lag
}
