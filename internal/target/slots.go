package target

import (
	"container/list"
	"context"
	"errors"
	"sync"
)

// errQueueFull is returned by acquire when no slot is free and the wait
// queue is at its bound.
var errQueueFull = errors.New("target: queue full")

// slots is a counting semaphore with an explicit, bounded FIFO wait queue.
// Slots are handed directly from a releasing call to the oldest waiter, so
// waiters are served strictly in arrival order.
type slots struct {
	mu       sync.Mutex
	free     int
	busy     int
	maxQueue int
	waiters  list.List // of *waiter, oldest first
}

// waiter is one call waiting for a slot. granted is guarded by slots.mu.
type waiter struct {
	ready   chan struct{}
	granted bool
}

// newSlots returns a semaphore with n slots and room for maxQueue waiters.
func newSlots(n, maxQueue int) *slots {
	return &slots{free: n, maxQueue: maxQueue}
}

// acquire takes a slot, waiting in FIFO order if none is free. It returns
// errQueueFull if the queue is full, or ctx.Err() if ctx ends first; in
// both cases no slot is held.
func (s *slots) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.free > 0 && s.waiters.Len() == 0 {
		s.free--
		s.busy++
		s.mu.Unlock()
		return nil
	}
	if s.waiters.Len() >= s.maxQueue {
		s.mu.Unlock()
		return errQueueFull
	}
	w := &waiter{ready: make(chan struct{})}
	elem := s.waiters.PushBack(w)
	s.mu.Unlock()

	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		return s.abandon(elem, ctx.Err())
	}
}

// abandon removes a cancelled waiter from the queue. If the slot was handed
// over concurrently, it is passed on so that it is not leaked.
func (s *slots) abandon(elem *list.Element, err error) error {
	s.mu.Lock()
	w := elem.Value.(*waiter)
	if !w.granted {
		s.waiters.Remove(elem)
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	s.release()
	return err
}

// release gives the slot to the oldest waiter, or frees it.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if front := s.waiters.Front(); front != nil {
		w := s.waiters.Remove(front).(*waiter)
		w.granted = true
		close(w.ready)
		return
	}
	s.free++
	s.busy--
}

// counts returns the number of slots in use and the number of waiters.
func (s *slots) counts() (busy, queued int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy, s.waiters.Len()
}
