package tester

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestStartBackoff checks that calls that cannot start slow down,
// doubling from 10 ms to at most 1 s, and that a call that starts resets.
func TestStartBackoff(t *testing.T) {
	t.Parallel()
	var b startBackoff
	want := []time.Duration{10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i, w := range want {
		if got := b.after(sample.FailedToStart); got != w*time.Millisecond {
			t.Fatalf("failure %d: wait %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	for _, st := range []sample.Status{sample.OK, sample.Failed, sample.Timeout} {
		b.after(sample.FailedToStart)
		if got := b.after(st); got != 0 {
			t.Errorf("after a %v call: wait %v, want 0", st, got)
		}
		if got := b.after(sample.FailedToStart); got != minStartBackoff {
			t.Errorf("first failure after a %v call: wait %v, want %v", st, got, minStartBackoff)
		}
		b.after(sample.OK)
	}
}
