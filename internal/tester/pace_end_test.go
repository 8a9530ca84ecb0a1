package tester

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestPaceEndsAtTheDurationNotTheInterval: a tester running 1 s with one
// call every 30 s makes its one call and ends when its duration does, not
// 30 s later waiting for a call it would never make (a run of one call
// used to last 30 s).
func TestPaceEndsAtTheDurationNotTheInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		calls := 0
		why := pace(context.Background(), time.Second, 30*time.Second, func(context.Context) sample.Status {
			calls++
			time.Sleep(100 * time.Millisecond)
			return sample.OK
		})
		if took := time.Since(start); why != "completed" || calls != 1 || took > time.Second {
			t.Errorf("pace: %q after %d calls in %v; want completed after 1 call within the 1 s duration", why, calls, took)
		}
	})
}

// TestPaceCallsUntilTheEnd: calls every 300 ms over 1 s start at 0, 300,
// 600 and 900 ms: the last one due before the end still starts.
func TestPaceCallsUntilTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		pace(context.Background(), time.Second, 300*time.Millisecond, func(context.Context) sample.Status {
			calls++
			return sample.OK
		})
		if calls != 4 {
			t.Errorf("%d calls, want 4 (at 0, 300, 600 and 900 ms)", calls)
		}
	})
}
