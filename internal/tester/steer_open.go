package tester

import (
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/protocol"
)

// steer makes the rate rate calls/s from tau (an offset from the run's
// start) until length, the stages' end: a load step of the open model.
// tau must not be earlier than any call already handed out; it is taken
// no earlier than where the stages start now. The stages before tau stay
// as they were; N(t) goes on, so that the call due next is the same call,
// only sooner or later: a higher rate thins the gaps from tau on, without
// a burst and without a call lost.
func (a *arrivals) steer(tau time.Duration, rate float64, length time.Duration) {
	tau = max(tau, a.orig)
	if tau >= length {
		return // the run is over by then
	}
	kept := make([]protocol.StageDesc, 0, len(a.stages)+1)
	start := a.orig
	for _, s := range a.stages {
		d := time.Duration(s.DurationNs)
		if tau <= start {
			break
		}
		if tau < start+d { // cut at tau, at its rate there
			x := float64(tau-start) / float64(d)
			s = protocol.StageDesc{DurationNs: int64(tau - start), From: s.From, To: s.From + (s.To-s.From)*x}
		}
		kept = append(kept, s)
		start += time.Duration(s.DurationNs)
	}
	a.stages = append(kept, protocol.StageDesc{DurationNs: int64(length - tau), From: rate, To: rate})
	a.stage, a.base, a.startNs = 0, a.origN, a.orig
}

// trim drops the stages that ended by now (an offset from the run's
// start) and hold no call still to come, so that a long steered run
// keeps only the stages ahead.
func (a *arrivals) trim(now time.Duration) {
	for a.stage > 0 && a.orig+time.Duration(a.stages[0].DurationNs) <= now {
		s := a.stages[0]
		a.orig += time.Duration(s.DurationNs)
		a.origN += (s.From + s.To) / 2 * time.Duration(s.DurationNs).Seconds()
		a.stages = a.stages[1:]
		a.stage--
	}
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
	d.arr.trim(time.Since(d.t0))
	d.arr.steer(at.Sub(d.t0), s.rate, d.length)
	d.next, d.more = d.arr.place()
}
