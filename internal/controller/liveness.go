package controller

import (
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// Failure semantics of the controller (docs/design/011-failure-semantics.md).
const (
	// HeartbeatEvery is how often the controller and its testers say they
	// are still there (in a run of up to 5,000 testers: cadenceFor); any
	// frame counts as a sign of life.
	HeartbeatEvery = time.Second
	// LostAfter is how long a tester may stay silent before it is marked
	// lost (in a run of up to 5,000 testers: cadenceFor): the sweep runs every sweepEvery and marks it once it has been
	// silent for LostAfter less one sweep, so that the mark comes at most
	// LostAfter after its last frame.
	LostAfter = 3 * time.Second
	// sweepEvery is how often waitAll checks deadlines and liveness (of
	// the slots due, dueHeap).
	sweepEvery = 100 * time.Millisecond
	// ackEvery is the least time between two acknowledgements to one
	// tester.
	ackEvery = protocol.AckEvery
)

// outFrame is a frame waiting for the slot's writer.
type outFrame struct {
	t protocol.Type
	p []byte
}

// send queues one frame for s's tester without holding up the controller:
// a writer goroutine runs while frames are queued (one per tester at most,
// and only then), so a tester whose connection blocks holds up nothing but
// itself, and is marked lost by the sweep. Called with c.mu held.
func (c *controller) send(s *slot, t protocol.Type, p []byte) {
	if s.conn == nil || s.over {
		return
	}
	s.outq = append(s.outq, outFrame{t, p})
	s.lastSent = time.Now()
	if !s.writing {
		s.writing, s.writeSince = true, s.lastSent
		go c.writer(s, s.conn)
	}
}

// writer writes s's queued frames in order until none is left. A failed
// write drops the rest: the session sees the connection end.
func (c *controller) writer(s *slot, conn *protocol.Conn) {
	c.enter()
	c.mu.Lock()
	for len(s.outq) > 0 {
		f := s.outq[0]
		s.outq = s.outq[1:]
		s.writeSince = time.Now()
		c.mu.Unlock()
		c.leave()
		s.writeNs.Store(time.Now().UnixNano()) // the write, not the wait for the gate, may block for the tester
		err := conn.Write(f.t, f.p)
		s.writeNs.Store(0)
		c.enter()
		c.mu.Lock()
		if err != nil {
			s.outq = nil
		}
	}
	s.writing, s.writeSince = false, time.Time{}
	c.dueBy(s, c.nextDue(s)) // its heartbeat is due again (nextDue leaves it out while writing)
	c.mu.Unlock()
	c.leave()
}

// heardFrom records a frame (or an authentic datagram) from s's tester,
// without c.mu unless it was lost and is heard for the first time since
// (then it is back: tester-back, at once): every frame of every tester
// comes here, and tens of thousands of session goroutines queued on one
// sync.Mutex make each garbage collection walk the queue once per waiter
// (Go 1.26 links a semaphore's waiters to each goroutine's g.waiting; see
// BenchmarkMutexWaitersGC).
func (c *controller) heardFrom(s *slot) {
	now := c.stampHeard(s)
	if !s.lostFlag.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !s.backAt.IsZero() {
		return
	}
	s.backAt = now
	s.lostFlag.Store(false) // lost and not heard since: no more c.mu per frame
	c.events.Add("tester-back", s.rec.Slot, s.rec.ID, fmt.Sprintf("heard again %v after it was lost",
		now.Sub(time.Unix(0, s.rec.StopNs)).Round(time.Millisecond)))
}

// tend does what is due for s by now: enforces its deadlines, marks it
// lost when it was silent for LostAfter (or a write to it blocked that
// long), sends its pending acknowledgement, and a heartbeat when nothing
// else was sent to it for HeartbeatEvery. Called by the sweep with c.mu
// held, for the slots due (dueHeap); it puts s back at its next time.
func (c *controller) tend(s *slot, now time.Time) {
	c.enforce(s, now)
	if s.conn != nil && !s.over {
		c.liveness(s, now)
	}
	c.dueBy(s, c.nextDue(s))
}

// liveness marks s lost when it has been silent, or a write to it blocked,
// for LostAfter less one sweep, and sends what it is owed: its pending
// acknowledgement, or a heartbeat when nothing else was sent to it for
// HeartbeatEvery (any frame is a sign of life). Called with c.mu held.
func (c *controller) liveness(s *slot, now time.Time) {
	limit := c.cad.lostAfter - sweepEvery
	if !s.finished() {
		switch {
		case c.silentFor(s, now) >= limit:
			c.markLost(s, c.cad.reasonSilent())
		case blockedFor(s, now) >= limit:
			c.markLost(s, c.cad.reasonBlocked())
		}
	}
	if s.ackSafe > s.ackSent && now.Sub(s.ackAt) >= ackEvery {
		s.ackSent, s.ackAt = s.ackSafe, now
		c.send(s, protocol.TypeAck, protocol.AppendAck(nil, s.ackSafe))
	}
	if now.Sub(s.lastSent) >= c.cad.heartbeat && !s.writing { // a lost tester hears them too: they tell it the partition healed
		c.send(s, protocol.TypeHeartbeat, nil)
	}
}

// ackNow records that s's samples up to seq are spooled and says whether
// to acknowledge them now, and up to which Seq: at once unless s was
// acknowledged less than ackEvery ago; then the sweep sends the highest
// Seq spooled when the period is over. Called with c.mu held.
func (c *controller) ackNow(s *slot, seq uint64, now time.Time) (uint64, bool) {
	s.ackSafe = max(s.ackSafe, seq)
	if s.ackSafe <= s.ackSent {
		return 0, false
	}
	if now.Sub(s.ackAt) < ackEvery {
		c.dueBy(s, s.ackAt.Add(ackEvery))
		return 0, false
	}
	s.ackSent, s.ackAt, s.lastSent = s.ackSafe, now, now
	return s.ackSafe, true
}

// ackPending takes s's last acknowledgement to send before its session
// ends: one is pending, or one was queued for its writer, which the hang-up
// may cut off (a repeated ack is harmless; a missing one is not). Called
// with c.mu held.
func (c *controller) ackPending(s *slot) (uint64, bool) {
	if s.ackSafe == 0 || (s.ackSafe <= s.ackSent && !s.writing) {
		return 0, false
	}
	s.ackSent, s.ackAt, s.lastSent = s.ackSafe, time.Now(), time.Now()
	return s.ackSafe, true
}

// markLost marks a tester that fell silent failed, but keeps its
// connection: if it is heard again its samples are still taken
// (tester-back). Called with c.mu held.
func (c *controller) markLost(s *slot, reason string) {
	if !c.recordFailure(s, "tester-lost", reason) {
		return
	}
	s.lost = true
	s.lostFlag.Store(true)
	c.lostOpen[s] = struct{}{}
	c.onFailure(s)
}

// waitLost reports whether the run should still wait for s, a tester
// marked lost whose connection is open: until its own deadline, the time
// it had to finish, unless the run is aborted. Called with c.mu held.
func (c *controller) waitLost(s *slot, now time.Time) bool {
	return s.lost && !s.over && s.conn != nil && !c.aborted && now.Before(s.deadline)
}

// sessionOver records that s's session ended and says, for a tester that
// was lost and heard again, how many samples came late. Called with c.mu
// held.
func (c *controller) sessionOver(s *slot) {
	s.over = true
	delete(c.lostOpen, s)
	if s.lost && !s.backAt.IsZero() {
		c.events.Add("late-samples", s.rec.Slot, s.rec.ID, fmt.Sprintf("%d samples came after it was lost", s.late))
	}
}
