package directory

import (
	"context"
	"net/http"
	"time"
)

// claim marks name's pending probes running and returns them; when
// there are none and wait, it leaves a channel that a new probe for name
// closes (one poll a sensor: an older one is woken, and finds none).
func (b *probeBook) claim(name string, now time.Time, wait bool) ([]Probe, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweep(now)
	b.lastPoll[name] = now
	var out []Probe
	for _, id := range b.order {
		if e := b.byID[id]; e.Src == name && e.State == ProbePending {
			e.State, e.since = ProbeRunning, now
			out = append(out, e.Probe)
		}
	}
	if len(out) > 0 || !wait {
		return out, nil
	}
	if old := b.waiters[name]; old != nil {
		close(old)
	}
	ch := make(chan struct{})
	b.waiters[name] = ch
	return nil, ch
}

// poll is a sensor's long poll: its pending probes, claimed, as soon as
// there are some, within wait (nothing after it).
func (b *probeBook) poll(ctx context.Context, name string, wait time.Duration, now func() time.Time) []Probe {
	out, ch := b.claim(name, now(), wait > 0)
	if ch == nil {
		return out
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ch:
		out, _ = b.claim(name, now(), false)
	case <-t.C:
	case <-ctx.Done():
	case <-shuttingDown(ctx):
	}
	b.unwait(name, ch, now())
	return out
}

// unwait drops name's poll ch if it is still the one left.
func (b *probeBook) unwait(name string, ch <-chan struct{}, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w := b.waiters[name]; w != nil && (<-chan struct{})(w) == ch {
		delete(b.waiters, name)
	}
	b.lastPoll[name] = now
}

// startAnswer checks that probe id is running and claimed by src's
// sensor, and marks it answering: a second answer is refused.
func (b *probeBook) startAnswer(id string, now time.Time) (Probe, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweep(now)
	e := b.byID[id]
	switch {
	case e == nil:
		return Probe{}, refusal(http.StatusNotFound, "id", "no probe %s (never made, ended over %v ago, or the directory restarted)", clip(id), ProbeKept)
	case e.State == ProbeExpired:
		return Probe{}, refusal(http.StatusGone, "id", "probe %s expired: %s; its result is not taken", id, e.Reason)
	case e.State != ProbeRunning:
		return Probe{}, refusal(http.StatusConflict, "id", "probe %s is %s; only a running (claimed) probe is answered", id, e.State)
	case e.answering:
		return Probe{}, refusal(http.StatusConflict, "id", "probe %s is being answered already", id)
	}
	e.answering = true
	return e.Probe, nil
}

// finish ends probe id as done with the stored result r, or as failed
// with reason; with neither (the result was not stored), it is running
// again.
func (b *probeBook) finish(id string, r *Result, reason string, now time.Time) Probe {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.byID[id]
	if e == nil { // forgotten past MaxKeptProbes meanwhile
		return Probe{ID: id, State: ProbeExpired, Reason: "forgotten while answered"}
	}
	switch {
	case e.Ended():
	case r != nil:
		e.Result = r
		b.end(e, ProbeDone, "", now)
	case reason != "":
		b.end(e, ProbeFailed, reason, now)
	default:
		e.answering = false
	}
	return e.Probe
}
