package sensor

import "time"

// BackoffPeriods caps how long a failing peer is held back, in periods
// (an hour at the default period).
const BackoffPeriods = 12

// backoff holds back the peers whose tests failed: after n failures in a
// row, a peer is not tried for base·2^(n−1), at most BackoffPeriods·base
// (base: the period); a test that runs to the end forgets its failures.
// The zero value holds no peer back.
type backoff struct {
	peers map[string]hold
}

type hold struct {
	fails int
	until time.Time
}

// failed counts a failure of peer at now and returns how long it is held
// back.
func (b *backoff) failed(peer string, now time.Time, base time.Duration) time.Duration {
	if b.peers == nil {
		b.peers = map[string]hold{}
	}
	h := b.peers[peer]
	h.fails++
	wait := base * BackoffPeriods
	if h.fails <= 4 { // 2^4 > BackoffPeriods: past it, the cap
		wait = min(wait, base<<(h.fails-1))
	}
	h.until = now.Add(wait)
	b.peers[peer] = h
	return wait
}

// ok forgets peer's failures.
func (b *backoff) ok(peer string) { delete(b.peers, peer) }

// held reports whether peer is held back at now.
func (b *backoff) held(peer string, now time.Time) bool {
	h, ok := b.peers[peer]
	return ok && now.Before(h.until)
}
