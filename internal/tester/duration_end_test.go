package tester

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestDurationEndWaitsForCallInFlight pins what docs/clients.md says of a
// call in flight when its tester's duration ends: it is not cut (its
// context stays live), the loop ends once it has, and no call starts
// after the end. With one client and with several.
func TestDurationEndWaitsForCallInFlight(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3} {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			var calls, cut atomic.Int32
			var last atomic.Int64
			why := runClients(context.Background(), n, 0, 8*time.Second, time.Second, func(ctx context.Context, _ uint32) sample.Status {
				calls.Add(1)
				if since := time.Since(start); since >= 8*time.Second {
					t.Errorf("a call started %v after the start, past the 8 s duration", since)
				}
				time.Sleep(5 * time.Second) // the second call of each client is in flight at 8 s
				if ctx.Err() != nil {
					cut.Add(1)
				}
				last.Store(int64(time.Since(start)))
				return sample.OK
			})
			if why != "completed" || cut.Load() != 0 || calls.Load() != int32(2*n) || time.Duration(last.Load()) != 10*time.Second {
				t.Errorf("%d clients: %q, %d calls, %d cut, the last ended at %v; want 2 calls each, none cut, the last at 10 s",
					n, why, calls.Load(), cut.Load(), time.Duration(last.Load()))
			}
		})
	}
}
