package client

import (
	"context"
	"time"
)

// Looper is a client that runs many closed-loop clients itself, cheaper
// than one goroutine per client calling Call. The tester uses it when the
// client it built implements it.
type Looper interface {
	// Loop runs clients closed loops (client ids 0..clients-1): each
	// starts its next call when the previous one ended, and no sooner
	// than interval after the previous start. No call starts at or after
	// until (a time of now's clock); calls in flight then end or time out.
	// now reads the tester's clock in ns; record is told each call, from
	// Loop's own goroutine, and must not keep r. It returns "completed"
	// when until was reached and "stopped" when ctx was cancelled (calls
	// in flight are then recorded Cancelled).
	Loop(ctx context.Context, clients int, interval time.Duration, until int64,
		now func() int64, record func(client uint32, start, end int64, r *Reply)) string
}
