package client

import (
	"context"
	"fmt"
	"time"
)

// OpenLooper is a client that runs the open model itself, cheaper than
// the tester's dispatcher handing each call to a goroutine. The tester
// uses it for an open-model run when the client it built implements it.
type OpenLooper interface {
	// LoopOpen makes the calls of p: each starts at its intended start on
	// a free connection, waits (late) in a bounded queue while every
	// connection is busy, and is given up (recorded Dropped) when it could
	// not start within p.MaxLate. now reads the tester's clock in ns;
	// record is told each call and each dropped call, from LoopOpen's own
	// goroutine, and must not keep r. It returns "completed" when every
	// call was made or dropped, "stopped" when ctx was cancelled (calls in
	// flight are recorded Cancelled, waiting ones Dropped).
	LoopOpen(ctx context.Context, p OpenPlan, now func() int64,
		record func(client uint32, intended, start, end int64, r *Reply)) string
}

// OpenPlan is the open model an OpenLooper runs.
type OpenPlan struct {
	Clients int // connections, ids 0 to Clients−1
	// Next returns the next call's intended start on now's clock, in
	// order, or false once there is none.
	Next    func() (int64, bool)
	End     int64         // the stages' end on now's clock: the loop lasts until then at least
	MaxLate time.Duration // how long a call may wait for a free connection
	Queue   int           // at most this many calls wait; the oldest is dropped to make room
	// Grain is the least time the loop sleeps between two wakes for
	// intended starts: calls due within it start together at the next
	// wake, up to Grain late (their lag, recorded), so that a high rate
	// costs fewer wakes than calls. 0: every call wakes the loop.
	Grain time.Duration
}

// The Err of the calls an open model gives up; the tester's dispatcher
// words its drops the same.

// DroppedLate is the Err of a call no client was free for within maxLate.
func DroppedLate(maxLate time.Duration) string {
	return fmt.Sprintf("dropped: no client free within %v", maxLate)
}

// DroppedFull is the Err of a call dropped because queue calls were
// already waiting.
func DroppedFull(queue int) string {
	return fmt.Sprintf("dropped: no client free and %d calls already waiting", queue)
}

// DroppedStopped is the Err of a call still waiting when the run stopped.
const DroppedStopped = "dropped: the tester stopped before a client was free"
