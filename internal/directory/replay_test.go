package directory

import (
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// TestSeenSigsPerKey checks the memory of signatures taken: a signature
// is taken once; a key past maxSeenPerKey within the window is refused,
// another key is not; once the window has passed the key is taken again.
func TestSeenSigsPerKey(t *testing.T) {
	var p seenSigs
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a, b := newKey(t).Public().(ed25519.PublicKey), newKey(t).Public().(ed25519.PublicKey)
	sig := func(k ed25519.PublicKey, i int) *signed {
		s := &signed{key: k, at: now.UnixNano()}
		binary.BigEndian.PutUint64(s.sig[:], uint64(i))
		return s
	}
	for i := range maxSeenPerKey {
		if err := p.take(sig(a, i), now); err != nil {
			t.Fatalf("signature %d: %v", i, err)
		}
	}
	if err := p.take(sig(a, 0), now); !errors.Is(err, ErrForbidden) {
		t.Errorf("a signature taken again: %v, want ErrForbidden", err)
	}
	if err := p.take(sig(a, maxSeenPerKey), now); !errors.Is(err, errBusySigs) {
		t.Errorf("a key past %d signatures: %v, want errBusySigs", maxSeenPerKey, err)
	}
	if err := p.take(sig(b, 0), now); err != nil {
		t.Errorf("another key while the first is past its cap: %v", err)
	}
	later := now.Add(SignatureWindow + time.Second)
	s := sig(a, maxSeenPerKey)
	s.at = later.UnixNano()
	if err := p.take(s, later); err != nil {
		t.Errorf("the key after the window: %v", err)
	}
}
