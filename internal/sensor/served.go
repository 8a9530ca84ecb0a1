package sensor

import (
	"fmt"
	"sync"
	"time"
)

// ServeWindow is the window over which a sensor's serving is limited.
const ServeWindow = time.Hour

// Served accounts for the tests a sensor serves to its peers, and
// decides which it serves: a test is served only while the sensor's time
// in tests, its own and those served (with this one), stays within
// Fraction of its time since start; within any ServeWindow (or since
// start, when shorter), the tests served take at most Fraction of it
// and, with a byte cap, move at most BytesPerHour over the window; one
// peer (a source address) at most its fair share of each: 1/(n+1) with
// n peers served in the window, the sensor's own tests counting as one
// more (one peer alone: half); the test that passes it is the last one. A Ledger that counts it (CountServed)
// charges what was served to the sensor's budget beside its own tests,
// and tells it of its own. Safe for concurrent use.
type Served struct {
	b     Budget
	start time.Time

	mu      sync.Mutex
	win     servedWindow  // the tests served within the window
	took    time.Duration // all served so far
	bytes   float64       // all moved so far
	pending time.Duration // the test time of the tests being served
	own     time.Duration // the sensor's own tests so far (Ledger.Add)
}

// NewServed returns the account of a sensor with budget b (b.Fraction
// above 0: the effective share, see Config.Budget) that started at start.
func NewServed(b Budget, start time.Time) *Served { return &Served{b: b, start: start} }

// Serve decides whether peer may have a test of testTime served now (an
// error says why not) and books it; maxBytes is what the test may move (0:
// no byte cap); done records what it really took and moved.
func (s *Served) Serve(peer string, testTime time.Duration) (maxBytes uint64, done func(time.Duration, uint64), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.win.expire(now)
	w := s.win.sums(peer)
	if err := s.overTime(w, peer, testTime, now); err != nil {
		return 0, nil, err
	}
	if s.b.BytesPerHour > 0 {
		capB := uint64(s.b.BytesPerHour * ServeWindow.Hours())
		if maxBytes = min(left(capB, w.allB), left(capB/uint64(w.peers+1), w.peerB)); maxBytes == 0 {
			return 0, nil, fmt.Errorf("the bytes this sensor serves %s are spent: %d served to it, %d in all, in the last %v", peer, w.peerB, w.allB, ServeWindow)
		}
	}
	t := s.win.add(now, peer, testTime)
	s.pending += testTime
	return maxBytes, func(took time.Duration, bytes uint64) { s.done(t, testTime, took, bytes) }, nil
}

// overTime says why a test of testTime for peer would pass a limit of
// time, nil if none: the budget since start, the serving budget over the
// window (or since start, when shorter), the peer's fair share of it.
func (s *Served) overTime(w window, peer string, testTime time.Duration, now time.Time) error {
	up := now.Sub(s.start)
	capT := time.Duration(s.b.Fraction * float64(min(ServeWindow, up)+testTime))
	share := capT / time.Duration(w.peers+1)
	spent := s.own + s.took + s.pending
	switch {
	case float64(spent+testTime) > s.b.Fraction*float64(up+testTime):
		return fmt.Errorf("this sensor's budget is spent: %v of %v in tests, its own and served, at most %.3g of it", spent, up.Round(time.Millisecond), s.b.Fraction)
	case w.allT+testTime > capT:
		return fmt.Errorf("this sensor's serving budget is spent: %v served in the last %v, at most %v", w.allT, ServeWindow, capT)
	case w.peerT >= share: // it may pass its share by one test: a sensor just up would refuse all
		return fmt.Errorf("%s's share is spent: %v served to it in the last %v, at most %v (one part in %d of %v: its peers served and its own tests)",
			peer, w.peerT, ServeWindow, share.Round(time.Millisecond), w.peers+1, capT.Round(time.Millisecond))
	}
	return nil
}

// done records what t, booked for testTime, really took and moved.
func (s *Served) done(t *servedTest, testTime, took time.Duration, bytes uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending -= testTime
	s.win.update(t, took, bytes)
	s.took += took
	s.bytes += float64(bytes)
}

// Totals is what the tests served so far took and moved.
func (s *Served) Totals() (time.Duration, float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.took, s.bytes
}

// left is what is left of max after used, 0 when none.
func left(max, used uint64) uint64 {
	if used >= max {
		return 0
	}
	return max - used
}

// HourBytes is what the tests served in the last ServeWindow moved.
func (s *Served) HourBytes(now time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.win.expire(now)
	return float64(s.win.all.bytes)
}

// addOwn records a test of the sensor's own that took took.
func (s *Served) addOwn(took time.Duration) {
	s.mu.Lock()
	s.own += took
	s.mu.Unlock()
}

// CountServed makes l charge the tests s records as served to the budget
// beside the sensor's own: Earliest and Spent count both, and s hears of
// the tests l books (Add), to serve within what they leave of the budget.
func (l *Ledger) CountServed(s *Served) { l.served = s }

// totals is the time and bytes l charges: the sensor's own tests, and
// those served when it counts them.
func (l *Ledger) totals() (time.Duration, float64) {
	if l.served == nil {
		return l.spent, l.bytes
	}
	t, b := l.served.Totals()
	return l.spent + t, l.bytes + b
}
