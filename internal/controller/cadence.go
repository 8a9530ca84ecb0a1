package controller

import (
	"fmt"
	"time"
)

// FrameBudget is how many sample batches a second the testers of one run
// send the controller together at most, by default: each tester ships its
// samples every testers/FrameBudget seconds (at least every DefaultBatch),
// so that the controller's work per second (a read, a decode, a spool
// write and an acknowledgement per batch) stays about that of 5,000
// testers at DefaultBatch however many testers there are. The samples
// themselves all arrive; only how late a batch may come grows, and with it
// the heartbeat period and the silence that marks a tester lost.
const FrameBudget = 10_000

// cadence is how often a run's testers and controller talk.
type cadence struct {
	batch     time.Duration // a tester ships its samples at least this often
	heartbeat time.Duration // either side says it is alive when it sent nothing else for this long
	lostAfter time.Duration // silence for this long marks a tester lost (and the controller, for a tester)
}

// cadenceFor is the cadence of a run of n testers: DefaultBatch,
// HeartbeatEvery and LostAfter up to 5,000 testers; past that, batches
// every n/FrameBudget seconds, a heartbeat every two batches, lost after
// three heartbeats.
func cadenceFor(n int) cadence {
	batch := max(DefaultBatch, time.Duration(n)*time.Second/FrameBudget)
	hb := max(HeartbeatEvery, 2*batch)
	return cadence{batch: batch, heartbeat: hb, lostAfter: max(LostAfter, 3*hb)}
}

// reasonSilent is the failure reason of a tester that fell silent.
func (cd cadence) reasonSilent() string {
	return fmt.Sprintf("no heartbeat for %v: cut off or hung", cd.lostAfter)
}

// reasonBlocked is the failure reason of a tester a write to which blocked.
func (cd cadence) reasonBlocked() string {
	return fmt.Sprintf("a write to it blocked for %v: cut off or hung", cd.lostAfter)
}
