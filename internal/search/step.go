package search

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/stats"
)

// Step holds one load: it is fed the load's seconds, leaves out the
// warm-up, and decides each SLO by a sequential test on the seconds after
// it. It is decided when an SLO fails, when every SLO meets, when a
// second was tester-bound, or at its time limit (then by the point
// estimates, marked weak).
type Step struct {
	cfg      *Config
	index    int
	load     float64
	limit    int // seconds measured at most
	cap      int // seconds fed at most, stale ones apart
	left     int // seconds fed at most, stale ones too: what is left of the budget (0: no bound)
	stale    int // seconds fed that were stale (Second.Stale), of refused
	seconds  int // seconds fed
	warm     int // seconds of warm-up
	warming  bool
	prev     uint64 // calls of the previous second
	all      uint64 // calls of every second fed
	ok, fail uint64 // calls of the measured seconds
	refused  int
	hist     *hdr.Histogram
	means    []float64 // per measured second with calls: its mean, ms
	slos     []sloState
	bound    string
	rec      *StepRecord
	resting  bool    // offering no load until the last step's backlog is served
	restS    int     // seconds of rest
	after    float64 // the load of the step before (a rest ends below Settle of it)
	from, to int64   // the first and last second fed (Second.T)
	offered  float64 // the calls offered over the measured seconds (Σ Second.Offered)
	minWarm  int     // the step's shortest warm-up, s (MinWarmup, or a queue's relaxation: relaxWarmup)
	maxWarm  int     // its longest
}

// sloState is one SLO's test within a step.
type sloState struct {
	slo      SLO
	test     sprt
	k, n     uint64 // calls over (or failed) of calls measured
	decision string
}

// newStep is step index at load, measuring at most limit seconds.
func newStep(cfg *Config, index int, load float64, limit int) *Step {
	st := &Step{cfg: cfg, index: index, load: load, limit: max(limit, 1), warming: true, hist: stats.NewRTHist()}
	st.minWarm, st.maxWarm = secs(cfg.MinWarmup), secs(cfg.MaxWarmup)
	st.cap = st.limit + 2*secs(cfg.MaxWarmup)
	for _, s := range cfg.SLOs {
		ss := sloState{slo: s}
		if s.kind != kindMean {
			ss.test = newSPRT(s.share(), cfg.Indifference, cfg.Alpha, cfg.Beta)
		}
		st.slos = append(st.slos, ss)
	}
	return st
}

// Load is the step's load.
func (st *Step) Load() float64 { return st.load }

// Add feeds the step its next second and reports whether it is decided;
// once decided it takes no more.
func (st *Step) Add(s Second) bool {
	if st.rec != nil {
		return true
	}
	if s.T > 0 {
		if st.from == 0 {
			st.from = s.T
		}
		st.to = s.T
	}
	if why := s.refused(); why != "" {
		return st.refuse(s.Stale)
	}
	st.seconds++
	st.all += s.calls()
	if st.resting {
		return st.rest(s)
	}
	if s.Offered > 0 && math.Abs(s.Offered-st.load) > 0.01*st.load {
		st.refused++ // another load's second (the live view's seconds end late)
		return st.over()
	}
	if s.TesterBound != "" {
		st.bound = s.TesterBound
		return st.finish()
	}
	if st.warming {
		if st.warm < st.maxWarm {
			st.warmup(s)
		} else {
			st.warming = false
		}
		if st.warming {
			return st.over()
		}
	}
	st.measure(s)
	return st.decided() || st.over()
}

// warmup ends the warm-up at the first second after MinWarmup whose
// throughput settled (that second is measured), or after MaxWarmup.
func (st *Step) warmup(s Second) {
	c, prev := float64(s.calls()), float64(st.prev)
	st.prev = s.calls()
	near := func(x, y float64) bool { return y > 0 && math.Abs(x-y) <= st.cfg.Settle*y }
	o := s.Offered
	settled := o > 0 && near(c, o) || // at the offered rate
		(o == 0 || c < (1-st.cfg.Settle)*o) && near(c, prev) // saturated (or closed), steady
	if st.warm >= st.minWarm && settled {
		st.warming = false
		return
	}
	st.warm++
}

// refuse counts a second refused (stale: of the load before).
func (st *Step) refuse(stale bool) bool {
	if stale {
		st.stale++
	}
	st.refused++
	st.seconds++
	return st.over()
}

// over finishes the step when it measured its limit, or when its seconds
// (warm-up and refused ones too) reach its cap (the limit and the longest
// warm-up and rest, or what is left of the search's budget). Stale
// seconds, those of the load before (the controller's loads take effect
// seconds after the seconds it is fed end), count only against the
// budget, and against twice the cap: each load sent costs a few.
func (st *Step) over() bool {
	fed := st.seconds - st.stale
	if st.measured() >= st.limit || fed >= st.cap || st.seconds >= 2*st.cap || st.left > 0 && st.seconds >= st.left {
		return st.finish()
	}
	return false
}

// measured is the seconds measured so far.
func (st *Step) measured() int { return st.seconds - st.restS - st.warm - st.refused }
