package sensor

import (
	"testing"
	"time"
)

// A failing peer is held back a period, then two, four, eight, and at
// most BackoffPeriods; a test that runs forgets its failures.
func TestBackoffDoublesToItsCapAndResets(t *testing.T) {
	var b backoff
	now := time.Unix(1e9, 0)
	for i, want := range []time.Duration{1, 2, 4, 8, 12, 12, 12} {
		if got := b.failed("b", now, time.Minute); got != want*time.Minute {
			t.Errorf("failure %d: held back %v, want %v", i+1, got, want*time.Minute)
		}
		if !b.held("b", now.Add(want*time.Minute-1)) {
			t.Errorf("failure %d: not held back just before its end", i+1)
		}
		if b.held("b", now.Add(want*time.Minute)) {
			t.Errorf("failure %d: still held back at its end", i+1)
		}
	}
	b.ok("b")
	if got := b.failed("b", now, time.Minute); got != time.Minute {
		t.Errorf("after a test that ran, a failure holds back %v, want a period", got)
	}
}
