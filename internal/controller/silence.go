package controller

import "time"

// stampHeard records that s's tester was heard (or that its session
// listens again) now, on the wall clock and on the awake clock.
func (c *controller) stampHeard(s *slot) time.Time {
	now := time.Now()
	s.heardNs.Store(now.UnixNano())
	s.heardAwake.Store(int64(c.awakeNow()))
	return now
}

// listening records that s's session is back reading after it handled a
// frame: the time it spent (waiting for the spool, the gate or c.mu) was
// the controller's, not the tester's silence, which counts again from now.
func (c *controller) listening(s *slot) {
	c.stampHeard(s)
	s.busy.Store(false)
}

// silentFor is how long s's tester has said nothing by now while the
// controller listened: counted in the time the controller was running
// (its own stalls left out: clock.Awake), and 0 while its session is busy
// with a frame rather than reading.
func (c *controller) silentFor(s *slot, now time.Time) time.Duration {
	if s.busy.Load() {
		return 0
	}
	d := now.Sub(s.lastHeard())
	if c.awake != nil {
		d = min(d, c.awake.Now()-time.Duration(s.heardAwake.Load()))
	}
	return d
}

// blockedFor is how long the write in progress to s's tester has been
// blocked by now (0: none in progress). The writer's wait for the gate
// and c.mu is the controller's own, and does not count.
func blockedFor(s *slot, now time.Time) time.Duration {
	if at := s.writeNs.Load(); at != 0 {
		return now.Sub(time.Unix(0, at))
	}
	return 0
}
