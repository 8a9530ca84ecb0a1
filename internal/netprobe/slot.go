package netprobe

import "sync"

// Slot is the one bandwidth test a host may take part in at a time, as
// sender or receiver. A sensor daemon gives the same Slot to its Server and
// acquires it before each bandwidth test of its own: while it holds the
// slot, its server answers peers "busy"; while its server is the far end
// of a test, TryAcquire fails and the daemon tries later. One lock for
// both ends leaves no window where both can start.
type Slot struct {
	mu   sync.Mutex
	held bool
}

// TryAcquire takes the slot if it is free and reports whether it did.
func (s *Slot) TryAcquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return false
	}
	s.held = true
	return true
}

// Release frees the slot taken by TryAcquire.
func (s *Slot) Release() {
	s.mu.Lock()
	s.held = false
	s.mu.Unlock()
}

// Held reports whether the slot is taken.
func (s *Slot) Held() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}
