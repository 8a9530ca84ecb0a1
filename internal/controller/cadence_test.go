package controller

import (
	"testing"
	"time"
)

// Up to 5,000 testers talk as every run always did; past that, batches,
// heartbeats and the loss bound grow with the testers, so that the
// controller's batches per second stay at FrameBudget.
func TestCadenceFor(t *testing.T) {
	for _, tc := range []struct {
		n                    int
		batch, beat, lostAft time.Duration
	}{
		{1, DefaultBatch, HeartbeatEvery, LostAfter},
		{5_000, DefaultBatch, HeartbeatEvery, LostAfter},
		{10_000, time.Second, 2 * time.Second, 6 * time.Second},
		{100_000, 10 * time.Second, 20 * time.Second, time.Minute},
	} {
		got := cadenceFor(tc.n)
		if got.batch != tc.batch || got.heartbeat != tc.beat || got.lostAfter != tc.lostAft {
			t.Errorf("cadenceFor(%d) = %+v, want batch %v, heartbeat %v, lost after %v", tc.n, got, tc.batch, tc.beat, tc.lostAft)
		}
		if tc.n > 5_000 {
			if perS := float64(tc.n) / got.batch.Seconds(); perS > FrameBudget*1.0001 {
				t.Errorf("%d testers ship %.0f batches a second, over the budget of %d", tc.n, perS, FrameBudget)
			}
		}
	}
}
