package controller

import (
	"strings"

	"github.com/diperf/diperf/internal/protocol"
)

// reasonCompleted is the reason a tester's Done gives when its client
// loop ran its whole duration.
const reasonCompleted = "completed"

// failedEarly marks s, whose Done said its client loop stopped before its
// time for reason (not told to: e.g. cut off from the controller), failed
// and stopped early, and applies the failure policy. Its connection is
// kept for the last acknowledgement. Called with c.mu held.
func (c *controller) failedEarly(s *slot, reason string) {
	s.rec.StoppedEarly, s.rec.StopReason = true, reason
	if !c.recordFailure(s, "failed", "stopped its clients before its time: "+reason) {
		return
	}
	c.events.Add("stopped", s.rec.Slot, s.rec.ID, reason)
	c.onFailure(s)
}

// noteEarly marks s stopped early, for reason, when it fails while its
// client loop runs and it was not told to stop (its process died, its
// connection ended). Called with c.mu held, before s is marked failed.
func noteEarly(s *slot, reason string) {
	if s.finished() || s.state != running || !s.stopSent.IsZero() {
		return
	}
	s.rec.StoppedEarly, s.rec.StopReason = true, reasonText(reason)
}

// reasonText is a reason from the wire as it is recorded: at most
// protocol.MaxErrText bytes of valid UTF-8.
func reasonText(s string) string {
	if len(s) > protocol.MaxErrText {
		s = s[:protocol.MaxErrText]
	}
	return strings.ToValidUTF8(s, "")
}
