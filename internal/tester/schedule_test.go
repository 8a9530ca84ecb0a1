package tester

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// fakeCalls is a client on fake time: each call takes took(i) and ends
// with status(i); it records when each call started, since the loop began.
type fakeCalls struct {
	t0     time.Time
	took   func(i int) time.Duration
	status func(i int) sample.Status
	starts []time.Duration
}

func (f *fakeCalls) call(context.Context) sample.Status {
	i := len(f.starts)
	f.starts = append(f.starts, time.Since(f.t0))
	time.Sleep(f.took(i))
	return f.status(i)
}

// onlyCall makes call k take d, the others no time.
func onlyCall(k int, d time.Duration) func(int) time.Duration {
	return func(i int) time.Duration {
		if i == k {
			return d
		}
		return 0
	}
}

// startsOnly makes call k succeed and every other fail to start.
func startsOnly(k int) func(int) sample.Status {
	return func(i int) sample.Status {
		if i == k {
			return sample.OK
		}
		return sample.FailedToStart
	}
}

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// TestPace runs the client loop on fake time and checks when each call
// starts: on the interval, back-to-back when a call is slower, backed off
// when the client cannot start.
func TestPace(t *testing.T) {
	t.Parallel()
	ok := func(int) sample.Status { return sample.OK }
	tests := []struct {
		name     string
		duration time.Duration
		interval time.Duration
		took     func(int) time.Duration
		status   func(int) sample.Status
		starts   []time.Duration
		ended    time.Duration // when pace returned
	}{
		{"calls faster than the interval start on it", time.Second, 100 * time.Millisecond,
			func(int) time.Duration { return 30 * time.Millisecond }, ok,
			ms(0, 100, 200, 300, 400, 500, 600, 700, 800, 900), 930 * time.Millisecond},
		{"calls slower than the interval go back-to-back, no catch-up burst", time.Second, 100 * time.Millisecond,
			func(int) time.Duration { return 250 * time.Millisecond }, ok,
			ms(0, 250, 500, 750), time.Second},
		{"one slow call delays the next only", time.Second, 200 * time.Millisecond,
			onlyCall(1, 500*time.Millisecond), ok,
			ms(0, 200, 700, 900), 900 * time.Millisecond}, // ends when no call is due before the end: no wait past it
		{"no interval: back-to-back", 100 * time.Millisecond, 0,
			func(int) time.Duration { return 40 * time.Millisecond }, ok,
			ms(0, 40, 80), 120 * time.Millisecond},
		{"a client that cannot start backs off 10, 20, 40 ms ... and the loop ends when the next try falls past the end", time.Second, 0,
			func(int) time.Duration { return 0 }, func(int) sample.Status { return sample.FailedToStart },
			ms(0, 10, 30, 70, 150, 310, 630), 630 * time.Millisecond},
		{"a call that starts resets the back-off", 200 * time.Millisecond, 0,
			func(int) time.Duration { return 0 },
			startsOnly(2),
			ms(0, 10, 30, 30, 40, 60, 100, 180), 180 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fakeCalls{t0: time.Now(), took: tt.took, status: tt.status}
				why := pace(t.Context(), tt.duration, tt.interval, f.call)
				if why != "completed" {
					t.Errorf("loop ended %q, want completed", why)
				}
				if !slices.Equal(f.starts, tt.starts) {
					t.Errorf("calls started at %v, want %v", f.starts, tt.starts)
				}
				if el := time.Since(f.t0); el != tt.ended {
					t.Errorf("loop ended after %v, want %v", el, tt.ended)
				}
			})
		})
	}
}

// TestPaceStops checks that a stop ends the loop at once, in a wait
// between calls.
func TestPaceStops(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		f := &fakeCalls{t0: time.Now(), took: func(int) time.Duration { return 10 * time.Millisecond },
			status: func(int) sample.Status { return sample.OK }}
		time.AfterFunc(2500*time.Millisecond, cancel)
		why := pace(ctx, time.Minute, time.Second, f.call)
		if why != "stopped" || time.Since(f.t0) != 2500*time.Millisecond || len(f.starts) != 3 {
			t.Errorf("loop ended %q after %v with %d calls, want stopped at 2.5s after 3", why, time.Since(f.t0), len(f.starts))
		}
	})
}

// TestResyncSchedule checks the re-sync times on fake time: 2 s after the
// first sync, then 4 s, 8 s, ... apart, up to the sync interval, going on
// through failed syncs.
func TestResyncSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		interval time.Duration
		run      time.Duration
		at       []time.Duration // since the first sync
	}{
		{"doubling up to the interval", 10 * time.Second, 60 * time.Second,
			secs(2, 6, 14, 24, 34, 44, 54)},
		{"an interval under the first step", time.Second, 5 * time.Second,
			secs(1, 2, 3, 4, 5)},
		{"the default 5 min", 5 * time.Minute, 10 * time.Minute,
			secs(2, 6, 14, 30, 62, 126, 254, 510)}, // 256 s, then the 300 s interval
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), tt.run+time.Millisecond)
				defer cancel()
				t0 := time.Now()
				var at []time.Duration
				failures := 0
				sync := func() error {
					at = append(at, time.Since(t0))
					if len(at)%2 == 0 {
						return errors.New("no probe answered")
					}
					return nil
				}
				resync(ctx, tt.interval, sync, func(error) { failures++ })
				if !slices.Equal(at, tt.at) {
					t.Errorf("synced at %v, want %v", at, tt.at)
				}
				if failures != len(tt.at)/2 {
					t.Errorf("%d failures reported, want %d", failures, len(tt.at)/2)
				}
			})
		})
	}
}

func secs(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Second
	}
	return out
}

// TestFirstSyncRetries checks on fake time that the first clock sync is
// tried again with back-off (a time server that comes up after its
// testers), gives up after its window with the last error, and stops
// when the tester is stopped.
func TestFirstSyncRetries(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		var at []time.Duration
		up := 2 * time.Second // the time server answers from then on
		sync := func() error {
			at = append(at, time.Since(t0))
			if time.Since(t0) < up {
				return errors.New("connection refused")
			}
			return nil
		}
		told := 0
		if err := firstSync(t.Context(), 30*time.Second, sync, func(error) { told++ }); err != nil {
			t.Fatalf("the time server came up after 2 s: %v", err)
		}
		want := []time.Duration{0, 250 * time.Millisecond, 750 * time.Millisecond, 1750 * time.Millisecond, 3750 * time.Millisecond}
		if !slices.Equal(at, want) || told != 1 {
			t.Errorf("synced at %v (failure told %d times), want %v (told once)", at, told, want)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		err := firstSync(t.Context(), 30*time.Second, func() error { return errors.New("connection refused") }, func(error) {})
		if err == nil || !strings.Contains(err.Error(), "connection refused") || time.Since(t0) != 30*time.Second {
			t.Errorf("a time server that never answers: %v after %v, want its error after the 30 s window", err, time.Since(t0))
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		t0 := time.Now()
		if err := firstSync(ctx, 30*time.Second, func() error { return errors.New("refused") }, func(error) {}); err == nil || time.Since(t0) != time.Second {
			t.Errorf("stopped after 1 s: %v after %v", err, time.Since(t0))
		}
	})
}
