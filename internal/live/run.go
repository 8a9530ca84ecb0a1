package live

import (
	"sync"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/search"
	"github.com/diperf/diperf/internal/stats"
)

// Lag is how long after a second ends its figures stay provisional.
const Lag = 3 * time.Second

// Run is the live state of one run. Safe for concurrent use; a nil *Run
// ignores every call, so that the controller need not check.
type Run struct {
	mu      sync.Mutex
	now     func() time.Time
	name    string
	planned int
	t0      int64         // first second of rows (Unix s)
	rows    []Second      // by second from t0
	final   int64         // every second before this is final; the others keep their histograms
	whole   *stats.Bucket // the whole run's successful calls
	classes []uint64      // calls by sample.Status
	recv    uint64
	testers []*Tester  // by slot
	errs    []errClass // failures by sample.Status
	state   string     // running, ended
	report  string     // the report's path once written
	hooks   []func(Second, *stats.Bucket)
	search  *search.Result // a capacity search's state (SetSearch); nil: none
	lag     time.Duration  // how long a second stays provisional (SetLag); 0: Lag
}

// numClasses is the number of sample status classes.
var numClasses = len(sample.Statuses())

// Options describe the run being watched.
type Options struct {
	Name    string           // the experiment's name
	Testers int              // testers planned
	Now     func() time.Time // the clock (nil: time.Now)
}

// New returns the live state of a run starting now.
func New(o Options) *Run {
	if o.Now == nil {
		o.Now = time.Now
	}
	t0 := o.Now().Unix()
	return &Run{now: o.Now, name: o.Name, planned: o.Testers, t0: t0, final: t0,
		whole: stats.NewBucket(), state: "running",
		classes: make([]uint64, numClasses), errs: make([]errClass, numClasses)}
}

// OnFinal registers f, called (without the Run's lock, in order) with each
// second when it becomes final, and its bucket: its calls, load and the
// response times of its successful calls, with their histogram (µs, of
// stats.NewRTHist's geometry). f must not keep the bucket.
func (r *Run) OnFinal(f func(Second, *stats.Bucket)) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.hooks = append(r.hooks, f)
	r.mu.Unlock()
}

// row returns the row of second t, growing rows; t before t0 is t0's.
func (r *Run) row(t int64) *Second {
	i := max(t-r.t0, 0)
	for int64(len(r.rows)) <= i {
		r.rows = append(r.rows, Second{T: r.t0 + int64(len(r.rows))})
	}
	return &r.rows[i]
}

// bucket returns the bucket of second t, with a histogram while t is
// not final (a final second's percentiles are made).
func (r *Run) bucket(t int64) *stats.Bucket {
	b := &r.row(t).rt
	if t >= r.final && b.Hist == nil {
		b.Hist = stats.NewRTHist()
	}
	return b
}

// Add counts a batch of samples from tester slot, whose clock m maps onto
// the global timeline (nil: its local clock is taken as global); produced
// is how many samples the tester says it has made so far.
func (r *Run) Add(slot int, ss []sample.Sample, produced uint64, m *clock.Mapper) {
	if r == nil || len(ss) == 0 {
		return
	}
	global := func(t int64) int64 { return t }
	if m != nil {
		global = m.Global
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tester(slot)
	for i := range ss {
		s := &ss[i]
		start, end := r.clamp(global(s.Start)), r.clamp(global(s.End))
		r.count(t, s, start, end)
	}
	r.recv += uint64(len(ss))
	t.Received += uint64(len(ss))
	t.Produced = max(t.Produced, produced)
	t.LastSeenNs = r.now().UnixNano()
}

// count adds one call, placed at [start, end] on the global timeline.
func (r *Run) count(t *Tester, s *sample.Sample, start, end int64) {
	if s.Status.Valid() {
		r.classes[s.Status]++
	}
	if s.Status != sample.Dropped {
		r.addLoad(start, end)
	}
	b := r.bucket(end / 1e9)
	switch s.Status {
	case sample.OK:
		ns := stats.RTNanos(s.Latency())
		b.AddOK(ns)
		t.OK++
		t.rt.AddRT(ns)
		r.whole.AddOK(ns)
	case sample.Cancelled:
	default:
		b.AddFailed()
		t.Failed++
		r.errs[s.Status].add(s.Err)
	}
}

// maxAhead is how far past now a call may be placed: a tester whose clock
// maps a call beyond it (a broken sync) would otherwise grow the rows
// without bound.
const maxAhead = time.Minute

// clamp bounds a global time to [the run's first second, now + maxAhead].
func (r *Run) clamp(t int64) int64 {
	return min(max(t, r.t0*1e9), r.now().Add(maxAhead).UnixNano())
}

// addLoad spreads a call in flight over [start, end) onto the seconds it
// overlaps: a second's load is the time calls were in flight in it, in
// seconds, i.e. the mean number in flight.
func (r *Run) addLoad(start, end int64) {
	if end <= start {
		return
	}
	for t := start / 1e9; t*1e9 < end; t++ {
		lo, hi := max(start, t*1e9), min(end, (t+1)*1e9)
		r.row(t).rt.AddLoad(float64(hi-lo) / 1e9)
	}
}

// Now is the time on r's clock (Options.Now): readers of r that ask for
// its latest seconds count them from it.
func (r *Run) Now() time.Time {
	if r == nil {
		return time.Now()
	}
	return r.now()
}
