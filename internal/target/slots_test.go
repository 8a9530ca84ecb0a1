package target

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestSlotsStress races acquisitions, cancellations and releases and checks
// that the bound holds and no slot is leaked or duplicated. On fake time,
// the timeouts and releases of many goroutines fall due at the same
// instants, and those goroutines then run at once.
func TestSlotsStress(t *testing.T) {
	bubble(t, func(t *testing.T) { stressSlots(t) })
}

// stressSlots is TestSlotsStress in its bubble.
func stressSlots(t *testing.T) {
	const n, goroutines = 3, 200
	s := newSlots(n, goroutines)
	var busy, peak atomic.Int64
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(300))*time.Microsecond)
			defer cancel()
			if err := s.acquire(ctx); err != nil {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("goroutine %d: %v", i, err)
				}
				return
			}
			if b := busy.Add(1); b > peak.Load() {
				peak.Store(b)
			}
			time.Sleep(50 * time.Microsecond)
			busy.Add(-1)
			s.release()
		})
	}
	wg.Wait()
	if p := peak.Load(); p > n {
		t.Errorf("peak concurrency %d > %d", p, n)
	}
	if b, q := s.counts(); b != 0 || q != 0 || s.free != n {
		t.Errorf("after all done: busy %d queued %d free %d", b, q, s.free)
	}
}

// TestSlotsZeroQueue checks that with no queue a busy semaphore rejects.
func TestSlotsZeroQueue(t *testing.T) {
	t.Parallel()
	s := newSlots(1, 0)
	if err := s.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.acquire(context.Background()); !errors.Is(err, errQueueFull) {
		t.Errorf("second acquire = %v, want errQueueFull", err)
	}
	s.release()
	if err := s.acquire(context.Background()); err != nil {
		t.Errorf("acquire after release: %v", err)
	}
}

// TestSlotsCancelDuringHandoff cancels a waiter while the slot is being
// handed to it; whichever wins, the slot must end up free exactly once.
func TestSlotsCancelDuringHandoff(t *testing.T) {
	bubble(t, func(t *testing.T) { cancelDuringHandoff(t) })
}

// cancelDuringHandoff is TestSlotsCancelDuringHandoff in its bubble.
func cancelDuringHandoff(t *testing.T) {
	for range 200 {
		s := newSlots(1, 1)
		if err := s.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan error, 1)
		go func() { got <- s.acquire(ctx) }()
		synctest.Wait() // the waiter is queued
		if _, q := s.counts(); q != 1 {
			t.Fatalf("%d waiters queued, want 1", q)
		}
		go cancel()
		s.release()
		if err := <-got; err == nil {
			s.release()
		}
		if b, q := s.counts(); b != 0 || q != 0 || s.free != 1 {
			t.Fatalf("busy %d queued %d free %d, want 0 0 1", b, q, s.free)
		}
		cancel()
	}
}
