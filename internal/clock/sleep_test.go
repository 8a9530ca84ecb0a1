package clock

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestSleep checks the three ends of a sleep on fake time: the whole
// duration, a context cancelled midway (at that instant), and a duration
// of 0 or less (no wait; false once the context is done).
func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if !Sleep(t.Context(), 3*time.Second) || time.Since(start) != 3*time.Second {
			t.Errorf("a whole sleep: ended after %v", time.Since(start))
		}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start = time.Now()
		if Sleep(ctx, time.Hour) || time.Since(start) != time.Second {
			t.Errorf("a cancelled sleep: ended after %v, or reported the hour passed", time.Since(start))
		}
		if Sleep(ctx, 0) || !Sleep(t.Context(), -time.Second) || time.Since(start) != time.Second {
			t.Errorf("a sleep of 0 or less waited, or ignored its context")
		}
		if !SleepUntil(t.Context(), time.Now().Add(2*time.Second)) || time.Since(start) != 3*time.Second {
			t.Errorf("SleepUntil: ended after %v", time.Since(start))
		}
	})
}
