package clock

import (
	"testing"
	"time"
)

// fakeNow is a clock a test moves by hand.
type fakeNow struct{ t time.Time }

func (f *fakeNow) now() time.Time { return f.t }

// ticks moves f by step n times, ticking a after each, and fails if a
// tick reports a stall.
func (f *fakeNow) ticks(t *testing.T, a *Awake, n int, step time.Duration) {
	t.Helper()
	for range n {
		f.t = f.t.Add(step)
		if s := a.Tick(); s != 0 {
			t.Fatalf("a tick %v after the one before reports a stall of %v", step, s)
		}
	}
}

// TestAwakeLeavesOutAStall ticks every 250 ms, then stalls the process
// for 3 s (the next tick comes 3.25 s late): the awake clock counts 500 ms
// of that step (its maxStep), before the ticker has run again and after.
func TestAwakeLeavesOutAStall(t *testing.T) {
	t.Parallel()
	f := &fakeNow{t: time.Unix(1000, 0)}
	a := NewAwakeAt(f.now, 500*time.Millisecond)
	f.ticks(t, a, 4, 250*time.Millisecond)
	if got := a.Now(); got != time.Second {
		t.Fatalf("after 1 s of ticks on time: %v awake", got)
	}
	f.t = f.t.Add(3250 * time.Millisecond) // stopped for 3 s
	if got := a.Now(); got != 1500*time.Millisecond {
		t.Errorf("right after the stall, before the tick: %v awake, want 1.5s", got)
	}
	if s := a.Tick(); s != 2750*time.Millisecond {
		t.Errorf("the late tick reports a stall of %v, want 2.75s", s)
	}
	if got := a.Now(); got != 1500*time.Millisecond {
		t.Errorf("after the late tick: %v awake, want 1.5s", got)
	}
	f.t = f.t.Add(200 * time.Millisecond)
	if got := a.Now(); got != 1700*time.Millisecond {
		t.Errorf("200 ms later: %v awake, want 1.7s", got)
	}
}

// TestAwakeStepsWithinTheBoundAllCount has ticks come late by less than
// maxStep (a busy host): all of that time counts.
func TestAwakeStepsWithinTheBoundAllCount(t *testing.T) {
	t.Parallel()
	f := &fakeNow{t: time.Unix(1000, 0)}
	a := NewAwakeAt(f.now, 500*time.Millisecond)
	f.ticks(t, a, 10, 450*time.Millisecond)
	if got := a.Now(); got != 4500*time.Millisecond {
		t.Errorf("%v awake after ten 450 ms steps, want 4.5s", got)
	}
}
