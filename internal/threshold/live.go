package threshold

import (
	"fmt"
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/stats"
)

// Second is one second of a run, as the controller aggregates it live.
type Second struct {
	T      int64         // the global second (Unix seconds), one more than the last one fed or later
	OK     int           // successful calls completed in it
	Failed int           // failed calls completed in it (not cancelled ones)
	Load   float64       // offered load: mean calls in flight over it
	RT     *stats.Bucket // response times of its successful calls, with their histogram (nil: none); read, not kept
	// Health is set when some tester reported its health for the second;
	// then the highest of the testers' figures follow (live.Second's; a
	// figure no tester measured is NaN). Without it the health metrics
	// have no data in the second.
	Health       bool
	TesterCPUPct float64 // % of the CPU a tester may use
	HostBusyPct  float64 // % busy of the host CPUs a tester may run on
	HostStealPct float64 // % stolen of them
	LagMaxMs     float64 // largest schedule lag, ms
	FDs          int     // most open descriptors of a tester
}

// health is the testers' health over s (not Known: none reported).
func (s Second) health() analyze.TesterHealth {
	if !s.Health {
		return analyze.TesterHealth{}
	}
	return analyze.TesterHealth{Known: true, CPUPct: s.TesterCPUPct, HostBusyPct: s.HostBusyPct,
		HostStealPct: s.HostStealPct, LagMaxMs: s.LagMaxMs, FDs: s.FDs}
}

// Breach is an abort threshold that has failed for its whole for:
// duration.
type Breach struct {
	Name     string  // as in Result.Name
	Observed float64 // the metric over its window at the last second
	Since    int64   // the first second of the failure that is still going on
}

// String says what failed, for the reason a run stopped.
func (b Breach) String() string {
	return fmt.Sprintf("threshold %q failed (observed %s) since second %d", b.Name, formatValue(b.Observed), b.Since)
}

// Live watches a run's abort thresholds (abort: true) second by second.
// Feed it every second in order with Add; when Add returns breaches, stop
// the run. Peak-window thresholds are not watched: the peak window is
// known only when the run ends (the experiment refuses them with abort).
// A Live is not safe for concurrent use.
type Live struct {
	watch []*watched
	last  int64 // the last second fed; 0: none yet
}

// watched is one abort threshold and its window's state.
type watched struct {
	name  string
	check experiment.Check
	span  int64 // seconds in the window; 0: the whole run so far
	forS  int64 // seconds it must fail in a row
	since int64 // first second of the current failure; 0: passing
	win   window
}

// NewLive returns a Live for the abort thresholds of ths (the others are
// evaluated at the end only); Len says how many there are.
func NewLive(ths []experiment.Threshold) (*Live, error) {
	l := &Live{}
	for i, t := range ths {
		if !t.Abort {
			continue
		}
		c, w, err := t.Parsed()
		if err != nil {
			return nil, fmt.Errorf("thresholds[%d]: %w", i, err)
		}
		if w.Kind == experiment.WindowPeak || experiment.RunOnly(c.Metric) {
			return nil, fmt.Errorf("thresholds[%d]: %s over %s is known only when the run ends and cannot abort it", i, c.Metric, w)
		}
		wt := &watched{name: Name(t, w), check: c, forS: max(ceilSeconds(t.For.D().Seconds()), 1)}
		wt.win.keep = w.Kind == experiment.WindowLast
		if w.Kind == experiment.WindowLast {
			wt.span = max(ceilSeconds(w.Last.Seconds()), 1)
		}
		l.watch = append(l.watch, wt)
	}
	return l, nil
}

// ceilSeconds rounds s seconds up to whole seconds.
func ceilSeconds(s float64) int64 { return int64(math.Ceil(s - 1e-9)) }

// Len is how many thresholds l watches (0: Add has nothing to do).
func (l *Live) Len() int { return len(l.watch) }

// Add feeds second s and returns the thresholds that have now failed,
// over their window, in every second of their for: duration (nil: none).
// A second not after the last one fed is an error.
func (l *Live) Add(s Second) ([]Breach, error) {
	if l.last != 0 && s.T <= l.last {
		return nil, fmt.Errorf("threshold: second %d fed after second %d", s.T, l.last)
	}
	l.last = s.T
	if len(l.watch) == 0 {
		return nil, nil
	}
	var h *hdr.Histogram
	if s.RT != nil {
		h = s.RT.Hist
	}
	counts, err := countsOf(h)
	if err != nil {
		return nil, err
	}
	var out []Breach
	for _, w := range l.watch {
		w.win.add(s, counts)
		if w.span > 0 {
			w.win.evictBefore(s.T - w.span + 1)
		}
		v, ok := w.win.figures().value(w.check.Metric)
		if !ok || w.check.Holds(v) {
			w.since = 0 // no data is not a failure while the run goes
			continue
		}
		if w.since == 0 {
			w.since = s.T
		}
		if s.T-w.since+1 >= w.forS {
			out = append(out, Breach{Name: w.name, Observed: v, Since: w.since})
		}
	}
	return out, nil
}

// countsOf returns h's counts in the analyzer's geometry (nil for nil).
func countsOf(h *hdr.Histogram) ([]int64, error) {
	if h == nil || h.TotalCount() == 0 {
		return nil, nil
	}
	if h.LowestTrackableValue() != stats.RTLowestUs || h.HighestTrackableValue() != stats.RTHighestUs || h.SignificantFigures() != stats.RTDigits {
		g := stats.NewRTHist()
		if dropped := g.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("threshold: %d response times out of the range 1 µs to 1 h", dropped)
		}
		h = g
	}
	return h.Export().Counts, nil
}
