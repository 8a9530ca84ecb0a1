package netprobe

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Slot is the one bandwidth test a host may take part in at a time, as
// sender or receiver. A sensor daemon gives the same Slot to its Server and
// takes it before each bandwidth test of its own: while it holds the
// slot, its server answers peers "busy"; while its server is the far end
// of a test, Take fails and the daemon tries later. One lock for both ends
// leaves no window where both can start. A hold taken with Take is
// bounded: past its limit the slot is released, the holder's context
// ends, and Log (when set) says whose hold it was.
type Slot struct {
	// Log hears a hold released for lasting past its limit (nil: silent).
	// Set it before the slot is shared.
	Log func(string)

	mu    sync.Mutex
	held  bool
	gen   uint64    // the current hold's number: a late release of an earlier one does nothing
	who   string    // the current hold's holder, as Take was told
	since time.Time // when it was taken
}

// HeldError is why Take failed: who holds the slot, and since when.
type HeldError struct {
	Who   string
	Since time.Time
}

func (e *HeldError) Error() string {
	if e.Who == "" {
		return "the bandwidth slot is held"
	}
	return fmt.Sprintf("the bandwidth slot is held by %s (for %v)", e.Who, time.Since(e.Since).Round(time.Millisecond))
}

// Take takes the slot for who (said in HeldError and in the log) for at
// most limit (0: no limit). It returns a context derived from ctx that
// ends when the hold passes its limit (the holder stops at once), and the
// release to call when done (calling it again, or after the limit, does
// nothing). When the slot is held it returns a *HeldError.
func (s *Slot) Take(ctx context.Context, who string, limit time.Duration) (context.Context, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return nil, nil, &HeldError{Who: s.who, Since: s.since}
	}
	s.held, s.who, s.since = true, who, time.Now()
	s.gen++
	gen := s.gen
	hctx, cancel := context.WithCancel(ctx)
	release := func() { cancel(); s.releaseGen(gen, "") }
	if limit > 0 {
		tm := time.AfterFunc(limit, func() {
			s.releaseGen(gen, fmt.Sprintf("the bandwidth slot was held by %s for more than %v: released, its test stopped", who, limit))
			cancel()
		})
		release = func() { tm.Stop(); cancel(); s.releaseGen(gen, "") }
	}
	return hctx, release, nil
}

// releaseGen frees the slot if hold gen still has it, and logs msg then.
func (s *Slot) releaseGen(gen uint64, msg string) {
	s.mu.Lock()
	mine := s.held && s.gen == gen
	if mine {
		s.held, s.who = false, ""
	}
	log := s.Log
	s.mu.Unlock()
	if mine && msg != "" && log != nil {
		log(msg)
	}
}

// TryAcquire takes the slot, without a limit or a name, if it is free and
// reports whether it did.
func (s *Slot) TryAcquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return false
	}
	s.held, s.who, s.since = true, "", time.Now()
	s.gen++
	return true
}

// Release frees the slot taken by TryAcquire.
func (s *Slot) Release() {
	s.mu.Lock()
	s.held, s.who = false, ""
	s.mu.Unlock()
}

// Held reports whether the slot is taken.
func (s *Slot) Held() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// HoldLimit is the longest a bandwidth test of testTime holds the slot at
// either end: the handshake, the test time and the grace for the report.
// A hold past it is stuck, not slow.
func HoldLimit(testTime time.Duration) time.Duration {
	return handshakeTimeout + testTime + grace
}
