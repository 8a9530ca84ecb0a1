package monitor

import (
	"errors"
	"math"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Series a log endpoint writes beside its fields' (docs/monitor.md).
const (
	LogLines        = "lines_total"          // matching lines counted so far
	LogLate         = "lines_late_total"     // of them, those that came after their interval's point
	LogRefused      = "lines_refused_total"  // lines left out, by reason
	LogValueRefused = "values_refused_total" // captured values left out, by field
	LogCapped       = "reads_capped_total"   // intervals whose reading stopped at MaxLogRead
)

// Reasons a log line is refused (the reason label of LogRefused).
const (
	RefusedLong    = "too_long"           // longer than MaxLogLine
	RefusedStamp   = "no_stamp"           // its time stamp cannot be read
	RefusedRange   = "stamp_out_of_range" // stamped before the run or well after now
	RefusedPending = "pending_full"       // stamped after now, with MaxLogPending such lines waiting
)

// refusedReasons are the reasons, in the order written.
var refusedReasons = []string{RefusedLong, RefusedStamp, RefusedRange, RefusedPending}

// Bounds of a log endpoint: nothing in the file is trusted.
const (
	MaxLogLine    = 64 << 10 // bytes of one line; a longer one is skipped and counted
	MaxLogRead    = 64 << 20 // bytes read per interval; the rest is read the next
	MaxLogPending = 100_000  // lines stamped after now waiting for their point
	// MaxLogValue bounds a value taken percentiles of; the histogram
	// holds 2 significant digits from 1e-6 up to it.
	MaxLogValue = 1e12
	logScale    = 1e6 // a value's units in the histogram
)

// logState counts a log endpoint's lines between its points. Lines are
// added as they are read and the points taken every interval, possibly
// from two goroutines.
type logState struct {
	mu      sync.Mutex
	p       *logParser
	now     func() time.Time
	startNs int64 // the run's start: earlier stamps (by more than an interval) are refused
	ivNs    int64
	lag     int64      // stamped lines: how long after its stamp a line may still come (the point is taken that long ago)
	lastAt  int64      // the last point's instant (0: none yet)
	cutAt   int64      // the coming point's instant, once marked
	cutting bool       // between mark and point
	pending []parsed   // lines stamped after the coming point, waiting for theirs
	head    int        // pending[:head] were counted
	maxPend int        // MaxLogPending (tests lower it)
	lines   float64    // matching lines counted
	late    float64    // of them, counted after their interval's point
	refused [4]float64 // by refusedReasons
	capped  float64
	sums    []float64        // per field: sum of its values
	counts  []float64        // per field: values taken percentiles of
	badVals []float64        // per field: values refused
	hists   []*hdr.Histogram // per percentiles field: this interval's values (nil for sum)
}

// newLogState counts lines from start on with p; a stamped line is
// counted at the first point taken lag after its stamp or later.
func newLogState(p *logParser, now func() time.Time, interval, lag time.Duration) *logState {
	st := &logState{p: p, now: now, startNs: now().UnixNano(), ivNs: int64(interval), lag: int64(lag), maxPend: MaxLogPending}
	n := len(p.fields)
	st.sums, st.counts, st.badVals, st.hists = make([]float64, n), make([]float64, n), make([]float64, n), make([]*hdr.Histogram, n)
	for i, f := range p.fields {
		if f.Stat == "percentiles" {
			st.hists[i] = hdr.New(1, int64(MaxLogValue*logScale), 2)
		}
	}
	return st
}

// refuse counts a line refused for reason i of refusedReasons.
func (st *logState) refuse(i int) {
	st.mu.Lock()
	st.refused[i]++
	st.mu.Unlock()
}

// add counts one line as it is read (without its newline).
func (st *logState) add(line []byte) {
	if len(line) > MaxLogLine {
		st.refuse(0)
		return
	}
	pl, ok, err := st.p.parse(line)
	if !ok {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	nowNs := st.now().UnixNano()
	switch {
	case errors.Is(err, errStamp):
		st.refused[1]++
	case st.p.tgroup == 0:
		st.apply(pl)
	case pl.stampNs < st.startNs-st.ivNs || pl.stampNs > nowNs+st.ivNs:
		st.refused[2]++
	case pl.stampNs <= st.lastAt:
		st.late++
		st.apply(pl)
	case pl.stampNs <= st.limit(nowNs):
		st.apply(pl)
	case len(st.pending)-st.head >= st.maxPend:
		st.refused[3]++
	default:
		st.pending = append(st.pending, pl)
	}
	st.settle(st.limit(nowNs))
}

// limit is the latest stamp sure to be at or before the coming point's:
// between mark and point that point's, else lag before now (the coming
// point is marked later). Called with mu held.
func (st *logState) limit(nowNs int64) int64 {
	if st.cutting {
		return st.cutAt
	}
	return nowNs - st.lag
}

// settle counts the waiting lines, from the first, stamped up to limit.
// Called with mu held.
func (st *logState) settle(limit int64) {
	for st.head < len(st.pending) && st.pending[st.head].stampNs <= limit {
		st.apply(st.pending[st.head])
		st.pending[st.head] = parsed{}
		st.head++
	}
	if st.head > len(st.pending)/2 {
		st.pending = append(st.pending[:0], st.pending[st.head:]...)
		st.head = 0
	}
}

// mark begins a point: its reading starts now. A stamped endpoint's
// point counts the lines stamped up to lag before now.
func (st *logState) mark() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	t0 := st.now().UnixNano()
	if st.p.tgroup > 0 {
		st.cutAt, st.cutting = t0-st.lag, true
	}
	return t0
}

// apply counts a line in the next point. Called with mu held.
func (st *logState) apply(pl parsed) {
	st.lines++
	for i, v := range pl.vals {
		h := st.hists[i]
		switch {
		case math.IsNaN(v), h != nil && (v < 0 || v > MaxLogValue):
			st.badVals[i]++
		case h == nil:
			st.sums[i] += v
		default:
			_ = h.RecordValue(int64(math.Round(v * logScale))) // in range: checked above
			st.counts[i]++
		}
	}
}

// point ends the reading mark began at t0: the endpoint's series at its
// instant (the lines stamped up to the marked instant; without stamps,
// those read by the middle of the reading, which took dur), and the
// percentiles of the interval's lines.
func (st *logState) point(t0 int64) (at int64, dur time.Duration, out []Series) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t1 := st.now().UnixNano()
	at, dur = t0+(t1-t0)/2, time.Duration(t1-t0)
	if st.p.tgroup > 0 {
		at = st.cutAt
		keep := st.pending[:0]
		for _, pl := range st.pending[st.head:] {
			if pl.stampNs <= at {
				st.apply(pl)
			} else {
				keep = append(keep, pl)
			}
		}
		clear(st.pending[len(keep):])
		st.pending, st.head, st.cutting = keep, 0, false
	}
	st.lastAt = at
	out = []Series{{Metric: LogLines, Value: st.lines}, {Metric: LogLate, Value: st.late}, {Metric: LogCapped, Value: st.capped}}
	for i, r := range refusedReasons {
		out = append(out, Series{Metric: LogRefused, Labels: `reason="` + r + `"`, Value: st.refused[i]})
	}
	for i, f := range st.p.fields {
		out = append(out, Series{Metric: LogValueRefused, Labels: `field="` + f.Name + `"`, Value: st.badVals[i]})
		out = append(out, st.fieldSeries(i, f.Name)...)
	}
	return at, dur, out
}

// fieldSeries is field i's series; its interval's histogram is emptied.
// Called with mu held.
func (st *logState) fieldSeries(i int, name string) []Series {
	h := st.hists[i]
	if h == nil {
		return []Series{{Metric: name + "_sum", Value: st.sums[i]}}
	}
	out := []Series{{Metric: name + "_count", Value: st.counts[i]}}
	if h.TotalCount() > 0 {
		for _, q := range []struct {
			label string
			pct   float64
		}{{"0.5", 50}, {"0.9", 90}, {"0.99", 99}} {
			out = append(out, Series{Metric: name, Labels: `quantile="` + q.label + `"`, Value: float64(h.ValueAtPercentile(q.pct)) / logScale})
		}
	}
	h.Reset()
	return out
}

// counts returns the lines refused by reason and the values refused, for
// the monitor-stopped event.
func (st *logState) totals() (refused map[string]int, late, badValues int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	refused = map[string]int{}
	for i, r := range refusedReasons {
		if st.refused[i] > 0 {
			refused[r] = int(st.refused[i])
		}
	}
	for _, b := range st.badVals {
		badValues += int(b)
	}
	return refused, int(st.late), badValues
}
