package tester

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// clientCall makes one timed call as client loop client and returns its
// status class.
type clientCall func(ctx context.Context, client uint32) sample.Status

// runClients runs n client loops at once, each the closed loop of pace:
// one call every interval, back-to-back when a call is slower, until
// duration after now is over or ctx is done. Client j starts j × stagger
// after now (a client whose start falls after the end never calls). Every
// call carries its loop's index, 0 to n−1. It returns "completed" when
// every loop ran to the end, "stopped" when ctx ended any of them first.
//
// Each loop costs one goroutine and one timer: call must be safe for
// concurrent use (client.Client is: each call is its own), and it makes no
// allocation of its own per call.
func runClients(ctx context.Context, n int, stagger, duration, interval time.Duration, call clientCall) string {
	return runClientsGated(ctx, n, stagger, duration, interval, nil, call)
}

// runClientsGated is runClients with the loops of index g's active and
// above parked before their next call (nil: none is).
func runClientsGated(ctx context.Context, n int, stagger, duration, interval time.Duration, g *gate, call clientCall) string {
	if n <= 1 {
		return pacePark(ctx, duration, interval, g.parker(0), func(ctx context.Context) sample.Status { return call(ctx, 0) })
	}
	start := time.Now() // every client's first call is due j × stagger after this one instant
	end := start.Add(duration)
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for j := range n {
		wg.Go(func() {
			if clientLoop(ctx, j, start.Add(time.Duration(j)*stagger), end, interval, g, call) == "stopped" {
				stopped.Store(true)
			}
		})
	}
	wg.Wait()
	if stopped.Load() {
		return "stopped"
	}
	return "completed"
}

// clientLoop is client j's loop: it waits until due (never sooner: a
// goroutine scheduled late does not shift the others' starts), then paces
// its calls until end (g: the steered run's gate, nil when not steered).
func clientLoop(ctx context.Context, j int, due, end time.Time, interval time.Duration, g *gate, call clientCall) string {
	if !due.Before(end) {
		return "completed" // starts after the tester's duration: never calls
	}
	if delay := time.Until(due); delay > 0 {
		var s sleeper
		if !s.sleep(ctx, delay) {
			return "stopped"
		}
	}
	client := uint32(j)
	return pacePark(ctx, time.Until(end), interval, g.parker(j), func(ctx context.Context) sample.Status { return call(ctx, client) })
}

// sleeper waits on one timer, reset from wait to wait, so that a client
// loop allocates no timer per call.
type sleeper struct{ tm *time.Timer }

// arm sets the timer to fire in d and returns its channel; stop it if
// the wait ends otherwise.
func (s *sleeper) arm(d time.Duration) <-chan time.Time {
	if s.tm == nil {
		s.tm = time.NewTimer(d)
	} else {
		s.tm.Reset(d) // since Go 1.23 no stale tick survives Reset or Stop
	}
	return s.tm.C
}

// stop stops the timer.
func (s *sleeper) stop() { s.tm.Stop() }

// sleep waits d, or until ctx is done: then it returns false.
func (s *sleeper) sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-s.arm(d):
		return true
	case <-ctx.Done():
		s.stop()
		return false
	}
}
