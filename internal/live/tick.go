package live

import (
	"time"

	"github.com/diperf/diperf/internal/stats"
)

// final is a second made final, with its bucket, for the hooks.
type final struct {
	s Second
	b stats.Bucket
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

func fire(hooks []func(Second, *stats.Bucket), done []final) {
	for _, d := range done {
		for _, f := range hooks {
			f(d.s, &d.b)
		}
	}
}

// finalize makes final every second before until, returning them with
// their buckets (with an empty histogram for a second no call ended in),
// and drops their histograms. Called with r.mu held.
func (r *Run) finalize(until int64) []final {
	var out []final
	for ; r.final < until; r.final++ {
		b := r.bucket(r.final)
		row := r.row(r.final)
		row.show()
		row.Final = true
		out = append(out, final{*row, *b})
		b.Hist = nil
	}
	return out
}

// show sets s's figures from its bucket: the counts, load, mean and
// maximum always, the percentiles while the bucket has its histogram
// (a final second keeps those it was made final with).
func (s *Second) show() {
	b := &s.rt
	s.OK, s.Failed, s.Load = b.OK, b.Failed, b.LoadIntegral
	if b.N == 0 {
		return
	}
	s.MeanMs, s.MaxMs = b.Mean(), b.MaxMs()
	if b.Hist != nil {
		s.P50Ms, s.P90Ms, s.P99Ms = b.Percentile(50), b.Percentile(90), b.Percentile(99)
	}
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
