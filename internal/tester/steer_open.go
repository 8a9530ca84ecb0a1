package tester

import (
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/protocol"
)

// steer makes the rate rate calls/s from tau (an offset from the run's
// start) until length, the stages' end: a load step of the open model.
// tau must not be earlier than any call already handed out; it is taken
// no earlier than the last step's. N(t) goes on from its value at tau,
// so that the call due next is the same call, only sooner or later: a
// higher rate thins the gaps from tau on, without a burst and without a
// call lost.
func (a *arrivals) steer(tau time.Duration, rate float64, length time.Duration) {
	tau = max(tau, a.orig)
	if tau >= length {
		return // the run is over by then
	}
	n := a.integral(tau)
	a.stages = []protocol.StageDesc{{DurationNs: int64(length - tau), From: rate, To: rate}}
	a.orig, a.origN = tau, n
	a.stage, a.base, a.startNs = 0, n, tau
}

// integral returns N(tau), tau no earlier than a.orig.
func (a *arrivals) integral(tau time.Duration) float64 {
	n, start := a.origN, a.orig
	for _, s := range a.stages {
		d := time.Duration(s.DurationNs)
		if tau < start+d {
			x := (tau - start).Seconds()
			b := (s.To - s.From) / d.Seconds()
			return n + s.From*x + b*x*x/2
		}
		n += (s.From + s.To) / 2 * d.Seconds()
		start += d
	}
	return n
}

// steered makes d take the load steps of steps; its queue is the
// largest, since a step may raise the rate to any.
func (d *dispatcher) steered(steps <-chan loadStep) {
	d.steps = steps
	d.queue = ring{buf: make([]time.Time, maxOpenQueue)}
	d.fullErr = client.DroppedFull(maxOpenQueue)
}

// takeSteps applies, without waiting, every load step that came.
func (d *dispatcher) takeSteps() {
	for {
		select {
		case s := <-d.steps:
			d.steer(s)
		default:
			return
		}
	}
}

// steer applies load step s: from its instant, or from now when that has
// passed (a late step raising the rate would otherwise make a burst of
// the calls it should have started), the rate is s.rate; the call due
// next is placed anew, and the dispatcher waits for it, not for the one
// it was waiting for.
func (d *dispatcher) steer(s loadStep) {
	at := s.at
	if now := time.Now(); now.After(at) {
		at = now
	}
	tau := at.Sub(d.t0)
	d.arr.steer(tau, s.rate, d.length)
	d.next, d.more = d.arr.place()
}
