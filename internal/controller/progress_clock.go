package controller

import (
	"fmt"
	"time"
)

// progressClock is the head of the progress line: the time since the run
// started against its planned total, never past it ("[5s/8s]"). Past the
// total it says by how much ("[8s/8s +27s]") and, when finishing testers
// are past their duration, that they wait for their calls in flight, each
// of which ends within the client timeout (a tester's duration does not
// cut a call: docs/clients.md).
func progressClock(el, total time.Duration, finishing int, timeout time.Duration) string {
	if el <= total {
		return fmt.Sprintf("[%v/%v]", el, total)
	}
	head := fmt.Sprintf("[%v/%v +%v]", total, total, el-total)
	switch {
	case finishing == 1:
		head += fmt.Sprintf(" finishing: 1 tester past its duration waits for its calls in flight (each ends within client.timeout %v) |", timeout)
	case finishing > 1:
		head += fmt.Sprintf(" finishing: %d testers past their duration wait for their calls in flight (each ends within client.timeout %v) |", finishing, timeout)
	}
	return head
}

// pastDuration reports whether slot s, running, is past its duration at
// now (Unix ns): its client loop started duration ago or more.
func (s *slot) pastDuration(now int64, duration time.Duration) bool {
	return s.rec != nil && s.rec.StartNs != 0 && now-s.rec.StartNs >= int64(duration)
}
