package target

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestPause stalls the service from 1 s to 3 s after it starts: a call
// before the pause takes its service time, one that arrives during it
// waits for the pause to end and then its service time, one after it is
// served as usual (on fake time, so the durations are exact).
func TestPause(t *testing.T) {
	bubble(t, func(t *testing.T) {
		const service = 100 * time.Millisecond
		ts := newStarted(t, Config{Workers: 2, ServiceTime: service, Dist: DistFixed, Queue: 64,
			PauseAt: time.Second, PauseFor: 2 * time.Second}, nil)
		took := func() time.Duration {
			begin := time.Now()
			if code, _, err := ts.get(context.Background(), "/"); err != nil || code != http.StatusOK {
				t.Fatalf("call: %d, %v", code, err)
			}
			return time.Since(begin)
		}
		if d := took(); d != service {
			t.Errorf("before the pause: %v, want %v", d, service)
		}
		time.Sleep(1400 * time.Millisecond) // now 1.5 s in: 1.5 s of pause left
		if d := took(); d != 1500*time.Millisecond+service {
			t.Errorf("during the pause: %v, want the 1.5 s left of it plus %v", d, service)
		}
		if d := took(); d != service {
			t.Errorf("after the pause: %v, want %v", d, service)
		}
	})
}

// TestPauseValidate refuses negative pause times.
func TestPauseValidate(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	c.PauseFor = -time.Second
	if c.Validate() == nil {
		t.Error("a negative pause is accepted")
	}
}
