package controller

import (
	"container/heap"
	"time"
)

// dueHeap orders the slots that need tending (a deadline, a liveness
// check, an acknowledgement or a heartbeat) by when they are next due, so
// that each sweep touches only the slots due by then, not every slot.
// Entries are checked lazily: what moves a slot's time later (a frame
// heard or sent) leaves its entry be, and the sweep, finding it early,
// puts it back at its true time; only what moves it earlier reschedules
// it. Guarded by controller.mu.
type dueHeap []*slot

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].dueAt.Before(h[j].dueAt) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].dueIdx, h[j].dueIdx = i, j
}

// Push adds a slot (heap.Interface).
func (h *dueHeap) Push(x any) {
	s := x.(*slot)
	s.dueIdx = len(*h)
	*h = append(*h, s)
}

// Pop removes the last slot (heap.Interface).
func (h *dueHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	s.dueIdx = -1
	return s
}

// dueBy makes sure s is tended at the latest at t: it is put in the
// heap, or moved earlier in it. A zero t does nothing. Called with c.mu
// held.
func (c *controller) dueBy(s *slot, t time.Time) {
	if t.IsZero() {
		return
	}
	if s.dueIdx >= 0 {
		if t.Before(s.dueAt) {
			s.dueAt = t
			heap.Fix(&c.due, s.dueIdx)
		}
		return
	}
	s.dueAt = t
	heap.Push(&c.due, s)
}

// poke has s tended at the next sweep, after something about it changed
// that may make it due sooner (launched, joined, told to stop). Called
// with c.mu held.
func (c *controller) poke(s *slot) { c.dueBy(s, time.Now()) }

// popDue takes out of the heap every slot due by now. Called with c.mu
// held.
func (c *controller) popDue(now time.Time, into []*slot) []*slot {
	for len(c.due) > 0 && !c.due[0].dueAt.After(now) {
		into = append(into, heap.Pop(&c.due).(*slot))
	}
	return into
}

// nextDue is the earliest time at which anything about s may be due: a
// deadline, its silence or a blocked write reaching the loss bound, a
// pending acknowledgement, a heartbeat. Zero: nothing ever (finished, its
// session over). Called with c.mu held.
func (c *controller) nextDue(s *slot) time.Time {
	var t time.Time
	earliest := func(u time.Time) {
		if !u.IsZero() && (t.IsZero() || u.Before(t)) {
			t = u
		}
	}
	limit := c.cad.lostAfter - sweepEvery
	if !s.finished() {
		switch {
		case s.state == launched:
			earliest(s.deadline)
		case !s.stopSent.IsZero():
			earliest(s.stopSent.Add(c.stopGrace() + time.Nanosecond))
		case !s.deadline.IsZero():
			earliest(s.deadline.Add(time.Nanosecond))
		}
	}
	if s.conn == nil || s.over {
		return t
	}
	if !s.finished() {
		earliest(s.lastHeard().Add(limit))
		if s.writing {
			earliest(s.writeSince.Add(limit))
		}
	}
	if s.ackSafe > s.ackSent {
		earliest(s.ackAt.Add(ackEvery))
	}
	if !s.writing { // a frame is on its way; the writer puts s back when it is done
		earliest(s.lastSent.Add(c.cad.heartbeat))
	}
	return t
}
