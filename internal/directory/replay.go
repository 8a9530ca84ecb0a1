package directory

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync"
	"time"
)

// maxSeenPerKey bounds the signatures the directory remembers of one
// key within SignatureWindow: 4,096 in 2 minutes is 34 a second, where a
// sensor sends a renewal every 30 s and a result a test. A key past it
// has its own requests refused (503), no one else's.
const maxSeenPerKey = 1 << 12

// seenSigs remembers, per key bound to a name, the signatures it took
// within the window, so that a request recorded on the way (plain HTTP)
// cannot be sent again. Only signatures that decided for a bound name are
// remembered: the keys are those of the directory's names, and what one
// of them sends fills its own place only.
type seenSigs struct {
	mu    sync.Mutex
	byKey map[string]*keySigs
	adds  int // since the last sweep of every key
}

// keySigs is one key's signatures: signature → signed at (Unix ns).
type keySigs struct {
	at      map[[ed25519.SignatureSize]byte]int64
	pruneAt int // prune when the map grows past this
}

// errBusySigs is a key past maxSeenPerKey within the window.
var errBusySigs = errors.New("too many signed requests from this key in the last 2 minutes; try again")

// take records sig, refusing one this key took already, or one past
// maxSeenPerKey.
func (p *seenSigs) take(sig *signed, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	oldest := now.Add(-SignatureWindow).UnixNano()
	if p.adds++; p.adds >= 1<<16 {
		p.sweep(oldest)
	}
	if p.byKey == nil {
		p.byKey = map[string]*keySigs{}
	}
	k := p.byKey[string(sig.key)]
	if k == nil {
		k = &keySigs{at: map[[ed25519.SignatureSize]byte]int64{}, pruneAt: 64}
		p.byKey[string(sig.key)] = k
	}
	if _, ok := k.at[sig.sig]; ok {
		return fmt.Errorf("%w: this signature was taken already (a request sent again)", ErrForbidden)
	}
	if len(k.at) >= min(k.pruneAt, maxSeenPerKey) {
		k.prune(oldest)
	}
	if len(k.at) >= maxSeenPerKey {
		return errBusySigs
	}
	k.at[sig.sig] = sig.at
	return nil
}

// sweep prunes every key's signatures, and forgets keys left with none.
func (p *seenSigs) sweep(oldest int64) {
	p.adds = 0
	for name, k := range p.byKey {
		if k.prune(oldest); len(k.at) == 0 {
			delete(p.byKey, name)
		}
	}
}

// prune forgets the signatures made before oldest (out of the window:
// refused by their time anyway).
func (k *keySigs) prune(oldest int64) {
	for s, t := range k.at {
		if t < oldest {
			delete(k.at, s)
		}
	}
	k.pruneAt = max(2*len(k.at), 64)
}
