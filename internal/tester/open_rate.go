package tester

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// arrivals yields the intended starts of the open model's calls, as
// offsets from the start of the run, in order.
//
// The rate's integral over time, N(t), counts the calls due by t. Uniform
// arrivals are evenly spaced in N: call k (k = 0, 1, …) is due when N
// reaches k + ½, half a gap after the start, so that a stage of R calls/s
// over D makes R·D calls (rounded), a ramp's calls thin out and thicken
// with its rate exactly, and a stage at rate 0 makes none. Poisson arrivals
// are a Poisson process of the same rate: N advances by an exponential
// draw of mean 1 from call to call (time rescaling), which is exponential
// gaps at the instantaneous rate, ramps included.
type arrivals struct {
	stages  []protocol.StageDesc
	poisson bool
	rng     *rand.Rand

	m       float64       // N at the next call
	k       int           // the next call's number
	stage   int           // the stage holding the next call
	base    float64       // N at the start of that stage
	startNs time.Duration // that stage's start

	orig  time.Duration // where stages start: 0, or the last load step's instant (steer)
	origN float64       // N there
}

func newArrivals(r *protocol.RateDesc) *arrivals {
	a := &arrivals{stages: r.Stages, poisson: r.Arrivals == protocol.ArrivalsPoisson}
	if a.poisson {
		a.rng = rand.New(rand.NewPCG(r.Seed, 0x9e3779b97f4a7c15))
	}
	return a
}

// next returns the next call's intended start, or false once the stages
// are over.
func (a *arrivals) next() (time.Duration, bool) {
	if a.poisson {
		a.m += a.rng.ExpFloat64()
	} else {
		a.m = float64(a.k) + 0.5
	}
	a.k++
	return a.place()
}

// place returns the next call's intended start under the stages as they
// are now, or false when it falls after them.
func (a *arrivals) place() (time.Duration, bool) {
	for ; a.stage < len(a.stages); a.stage++ {
		s := a.stages[a.stage]
		d := time.Duration(s.DurationNs)
		count := (s.From + s.To) / 2 * d.Seconds()
		if a.m < a.base+count {
			return a.startNs + within(s, a.m-a.base), true
		}
		a.base += count
		a.startNs += d
	}
	return 0, false
}

// within returns the time into stage s at which its integral reaches x
// calls (0 ≤ x < the stage's calls): with r(t) = a + b·t, a·t + b·t²/2 = x,
// solved in the form that stays exact when b is 0 or small.
func within(s protocol.StageDesc, x float64) time.Duration {
	if x <= 0 {
		return 0
	}
	dur := time.Duration(s.DurationNs)
	b := (s.To - s.From) / dur.Seconds()
	sec := 2 * x / (s.From + math.Sqrt(max(s.From*s.From+2*b*x, 0)))
	return min(time.Duration(math.Round(sec*1e9)), dur-1)
}

// peakRate returns the highest rate of the stages, in calls/s.
func peakRate(r *protocol.RateDesc) float64 {
	var p float64
	for _, s := range r.Stages {
		p = max(p, s.From, s.To)
	}
	return p
}
