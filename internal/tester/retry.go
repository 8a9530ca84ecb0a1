package tester

import (
	"context"
	"github.com/diperf/diperf/internal/clock"
	"time"
)

// Backoff is a retry schedule: waits doubling from First up to Max, for
// at most Window in all (0: try once).
type Backoff struct {
	First, Max, Window time.Duration
}

// Retry calls try until it succeeds, Window has passed, or ctx ends;
// failed hears the first failure. It returns the attempts made, whether
// ctx ended during a wait (stopped), and try's last error (nil once it
// succeeded).
func (b Backoff) Retry(ctx context.Context, try func() error, failed func(error)) (attempts int, stopped bool, err error) {
	deadline := time.Now().Add(b.Window)
	wait := b.First
	for attempts = 1; ; attempts++ {
		if err = try(); err == nil {
			return attempts, false, nil
		}
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return attempts, false, err
		}
		if attempts == 1 {
			failed(err)
		}
		if !clock.Sleep(ctx, min(wait, left)) {
			return attempts, true, err
		}
		wait = min(2*wait, b.Max)
	}
}
