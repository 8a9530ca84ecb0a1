package directory

import (
	"fmt"
	"time"
)

// ProbePollGrace is how long after its last poll a sensor still counts
// as taking probes: a sensor polls again at once after each answer, so
// past it the sensor stopped (or lost the directory), and its probes
// expire rather than wait out ProbeClaimWithin.
const ProbePollGrace = MaxProbeWait + 5*time.Second

// sweep expires the probes whose time has come and forgets what is past
// keeping, at most once a second.
func (b *probeBook) sweep(now time.Time) {
	if d := now.Sub(b.swept); d >= 0 && d < time.Second {
		return
	}
	b.swept = now
	kept := b.order[:0]
	for _, id := range b.order {
		e := b.byID[id]
		if reason := b.overdue(e, now); reason != "" {
			b.end(e, ProbeExpired, reason, now)
		}
		if e.Ended() && now.Sub(e.since) >= ProbeKept {
			delete(b.byID, id)
			continue
		}
		kept = append(kept, id)
	}
	b.order = kept
	b.pruneSources(now)
}

// overdue is why e expires at now, "" when it does not.
func (b *probeBook) overdue(e *probeEntry, now time.Time) string {
	age := now.Sub(e.since)
	switch {
	case e.State == ProbePending && age >= ProbeClaimWithin:
		return fmt.Sprintf("sensor %s did not claim it within %v", e.Src, ProbeClaimWithin)
	case e.State == ProbeRunning && !e.answering && age >= ProbeAnswerWithin:
		return fmt.Sprintf("sensor %s claimed it but did not answer within %v", e.Src, ProbeAnswerWithin)
	case !e.Ended() && !e.answering && !b.polling(e.Src, now):
		return fmt.Sprintf("sensor %s stopped asking the directory for its probes %v ago (it stopped, or lost the directory)",
			e.Src, now.Sub(b.lastPoll[e.Src]).Round(time.Second))
	}
	return ""
}

// polling reports whether name asks for its probes: a poll open, or one
// ended within ProbePollGrace.
func (b *probeBook) polling(name string, now time.Time) bool {
	if b.waiters[name] != nil {
		return true
	}
	last, ok := b.lastPoll[name]
	return ok && now.Sub(last) < ProbePollGrace
}

// end puts e in its final state.
func (b *probeBook) end(e *probeEntry, state, reason string, now time.Time) {
	e.State, e.Reason, e.since, e.answering = state, reason, now, false
	if b.open[e.requester]--; b.open[e.requester] <= 0 {
		delete(b.open, e.requester)
	}
	b.pending--
	b.ended[state]++
}

// forget drops the oldest ended probes when more than MaxKeptProbes
// are held (at most MaxPendingProbes of them are not ended), down to
// nine tenths of it: a scan drops many.
func (b *probeBook) forget() {
	if len(b.order) <= MaxKeptProbes {
		return
	}
	over := len(b.order) - MaxKeptProbes*9/10
	kept := b.order[:0]
	for _, id := range b.order {
		if over > 0 && b.byID[id].Ended() {
			delete(b.byID, id)
			over--
			continue
		}
		kept = append(kept, id)
	}
	b.order = kept
}

// pruneSources forgets the requesters with no request in the last minute
// and the sensors that stopped polling.
func (b *probeBook) pruneSources(now time.Time) {
	for src, r := range b.recent {
		if len(r) == 0 || now.Sub(r[len(r)-1]) >= time.Minute {
			delete(b.recent, src)
		}
	}
	for name, at := range b.lastPoll {
		if now.Sub(at) >= ProbeKept {
			delete(b.lastPoll, name)
		}
	}
}
