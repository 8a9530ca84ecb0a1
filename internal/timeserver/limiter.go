package timeserver

import (
	"net/netip"
	"sync"
	"time"
)

// Buckets idle longer than bucketIdle are pruned, at most every pruneEvery.
const (
	bucketIdle = 10 * time.Second
	pruneEvery = time.Second
)

// bucket is a token bucket; last is when it was last refilled, in ns on the
// limiter's monotonic timeline.
type bucket struct {
	tokens float64
	last   int64
}

// take refills b up to burst at rate tokens/s and takes one token if there
// is one.
func (b *bucket) take(now int64, rate, burst float64) bool {
	if el := now - b.last; el > 0 {
		b.tokens = min(burst, b.tokens+float64(el)*rate/1e9)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// limiter is a per-source token bucket with a bounded map: sources beyond
// maxSources share one overflow bucket, so spoofed addresses can neither
// grow the map without bound nor escape the limit. The caller holds mu
// around calls to allow, so that a whole batch takes the lock once.
type limiter struct {
	mu          sync.Mutex
	rate, burst float64
	maxSources  int
	sources     map[netip.Addr]*bucket
	overflow    bucket
	lastPrune   int64
	epoch       time.Time
	// clock, when set (by tests), is read instead of the time passed to
	// now, so that the buckets refill on a clock the test moves.
	clock func() time.Time
}

func newLimiter(rate, burst float64, maxSources int) *limiter {
	return &limiter{
		rate: rate, burst: burst, maxSources: maxSources,
		sources:  make(map[netip.Addr]*bucket),
		overflow: bucket{tokens: burst},
		epoch:    time.Now(),
	}
}

// now returns t (or the clock's time, when one is set) on the limiter's
// monotonic timeline, in ns.
func (l *limiter) now(t time.Time) int64 {
	if l.clock != nil {
		t = l.clock()
	}
	return int64(t.Sub(l.epoch))
}

// allow reports whether a request from src may be answered at now. The
// caller holds l.mu.
func (l *limiter) allow(src netip.Addr, now int64) bool {
	if now-l.lastPrune >= int64(pruneEvery) {
		l.prune(now)
	}
	b := l.sources[src]
	if b == nil {
		if len(l.sources) >= l.maxSources {
			return l.overflow.take(now, l.rate, l.burst)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.sources[src] = b
	}
	return b.take(now, l.rate, l.burst)
}

// prune forgets the sources idle for longer than bucketIdle: unless the
// burst takes longer than that to refill, they would be full again anyway.
func (l *limiter) prune(now int64) {
	l.lastPrune = now
	for a, b := range l.sources {
		if now-b.last > int64(bucketIdle) {
			delete(l.sources, a)
		}
	}
}
