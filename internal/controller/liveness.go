package controller

import (
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// Failure semantics of the controller (docs/design/011-failure-semantics.md).
const (
	// HeartbeatEvery is how often the controller and its testers say they
	// are still there; any frame counts as a sign of life.
	HeartbeatEvery = time.Second
	// LostAfter is how long a tester may stay silent before it is marked
	// lost: the sweep runs every sweepEvery and marks it once it has been
	// silent for LostAfter less one sweep, so that the mark comes at most
	// LostAfter after its last frame.
	LostAfter = 3 * time.Second
	// sweepEvery is how often waitAll checks deadlines and liveness.
	sweepEvery = 100 * time.Millisecond
)

// reasonSilent is the failure reason of a tester that fell silent.
var reasonSilent = fmt.Sprintf("no heartbeat for %v: cut off or hung", LostAfter)

// reasonBlocked is the failure reason of a tester a write to which blocked.
var reasonBlocked = fmt.Sprintf("a write to it blocked for %v: cut off or hung", LostAfter)

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
	if !s.writing {
		s.writing, s.writeSince = true, time.Now()
		go c.writer(s, s.conn)
	}
}

// writer writes s's queued frames in order until none is left. A failed
// write drops the rest: the session sees the connection end.
func (c *controller) writer(s *slot, conn *protocol.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(s.outq) > 0 {
		f := s.outq[0]
		s.outq = s.outq[1:]
		s.writeSince = time.Now()
		c.mu.Unlock()
		err := conn.Write(f.t, f.p)
		c.mu.Lock()
		if err != nil {
			s.outq = nil
		}
	}
	s.writing, s.writeSince = false, time.Time{}
}

// heardFrom records a frame from s's tester: a lost one is back.
func (c *controller) heardFrom(s *slot) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	s.lastHeard = now
	if s.lost && s.backAt.IsZero() {
		s.backAt = now
	}
}

// liveness sends the heartbeats that are due and marks lost every tester
// silent for LostAfter (or whose write blocked that long). Called by the
// sweep with c.mu held.
func (c *controller) liveness(now time.Time) {
	beat := now.Sub(c.lastBeat) >= HeartbeatEvery
	if beat {
		c.lastBeat = now
	}
	limit := LostAfter - sweepEvery
	for _, s := range c.slots {
		if s.conn == nil || s.over {
			continue
		}
		if !s.finished() {
			switch {
			case now.Sub(s.lastHeard) >= limit:
				c.markLost(s, reasonSilent)
			case s.writing && now.Sub(s.writeSince) >= limit:
				c.markLost(s, reasonBlocked)
			}
		}
		if beat && !s.writing { // a lost tester hears them too: they tell it the partition healed
			c.send(s, protocol.TypeHeartbeat, nil)
		}
	}
}

// markLost marks a tester that fell silent failed, but keeps its
// connection: if it is heard again its samples are still taken
// (tester-back). Called with c.mu held.
func (c *controller) markLost(s *slot, reason string) {
	if !c.recordFailure(s, "tester-lost", reason) {
		return
	}
	s.lost = true
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
	if s.lost && !s.backAt.IsZero() {
		c.events.Add("tester-back", s.rec.Slot, s.rec.ID, fmt.Sprintf("heard again %v after it was lost; %d late samples",
			s.backAt.Sub(time.Unix(0, s.rec.StopNs)).Round(time.Millisecond), s.late))
	}
}
