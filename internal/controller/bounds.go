package controller

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
)

// What a tester may claim (docs/design/008-crash-safe-raw-data.md): every
// time and count a tester sends is checked against what is physically
// possible for it in this run before it is taken. A time must fall in the
// tester's window: from when it joined to when the message arrived, on the
// controller's clock, widened by the tester's clock error (slack). A
// count must be at most what its clients could have produced since it
// joined. What falls outside is refused, counted with its reason
// (rundir.Refusals) and never stored.
const (
	// clockSlack widens every window beyond the tester's own clock
	// error bound: the scheduling and transit of the messages.
	clockSlack = time.Second
	// externalSkew widens the windows of a run whose testers sync with an
	// external time server (sync.server): its clock, the testers' global
	// time, may differ from the controller's by this much.
	externalSkew = 10 * time.Minute
	// maxDriftPPM bounds how fast a tester's clock may run against the
	// global time: oscillators err by AssumedMaxDriftPPM at most, and a
	// test may inject up to MaxClockDriftPPM more.
	maxDriftPPM = experiment.MaxClockDriftPPM + clock.AssumedMaxDriftPPM
)

// claims is what a tester's claims are checked against: when it joined,
// its clock syncs taken, the sample seqs seen. It has its own lock, taken
// by the tester's session and the UDP reader; c.mu may be held when it is
// taken, never the other way round.
type claims struct {
	mu       sync.Mutex
	joinedNs int64        // when the tester joined, on the controller's clock
	clients  uint64       // its client loops
	skew     int64        // externalSkew, or 0 with the controller's own time server
	ref      clock.Record // its latest sync taken
	synced   bool         // ref is set
	maxBound int64        // the largest error bound of its syncs taken
	seen     seqSet       // its sample seqs taken
}

// begin starts the checks of a tester that joined at joined and runs
// clients client loops.
func (cl *claims) begin(joined time.Time, clients int, external bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	cl.joinedNs, cl.clients = joined.UnixNano(), uint64(max(clients, 1))
	if external {
		cl.skew = int64(externalSkew)
	}
}

// slack is how far the tester's times may stray from its window at now:
// its clock's error bound, its drift since it joined, the skew and
// clockSlack. Called with cl.mu held.
func (cl *claims) slack(now int64) int64 {
	drift := float64(max(now-cl.joinedNs, 0)) * maxDriftPPM / 1e6
	return cl.maxBound + int64(clockSlack) + cl.skew + int64(drift)
}

// window returns the local times (the tester's clock) between which its
// times must fall at now: from when it joined to now, widened by the
// slack, through its latest sync's offset. Called with cl.mu held.
func (cl *claims) window(now int64) (lo, hi int64) {
	sl := cl.slack(now)
	lo, hi = addSat(cl.joinedNs, -sl), addSat(now, sl)
	if cl.synced {
		lo, hi = subSat(lo, cl.ref.OffsetNs), subSat(hi, cl.ref.OffsetNs)
	}
	return lo, hi
}

// maxCount is the most samples the tester can have produced by now: one
// per nanosecond per client loop since it joined (no call takes less).
// Called with cl.mu held.
func (cl *claims) maxCount(now int64) uint64 {
	ns := uint64(max(addSat(now-cl.joinedNs, cl.slack(now)), 0))
	if cl.clients == 0 { // it never joined: it cannot have produced anything
		return 0
	}
	if ns > math.MaxUint64/cl.clients {
		return math.MaxUint64
	}
	return ns * cl.clients
}

// localTime checks a local time the tester gave for what; nil if it is
// within its window at now.
func (cl *claims) localTime(what string, local, now int64) error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	lo, hi := cl.window(now)
	if local < lo || local > hi {
		return fmt.Errorf("%s at local %d ns is outside the tester's window, local %d to %d ns (from its join to now, ± %v of clock error)",
			what, local, lo, hi, time.Duration(cl.slack(now)))
	}
	return nil
}

// count checks a count the tester gave for what; nil if it is at most
// what it can have produced by now.
func (cl *claims) count(what string, n uint64, now int64) error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if most := cl.maxCount(now); n > most {
		return fmt.Errorf("%s %d is more than the tester can have produced (%d: one sample a nanosecond per client since it joined)",
			what, n, most)
	}
	return nil
}

// duration checks a duration the tester measured after it joined (a
// round trip); nil if it is at most the time since.
func (cl *claims) duration(what string, d, now int64) error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if most := addSat(now-cl.joinedNs, int64(clockSlack)); d < 0 || d > most {
		return fmt.Errorf("%s of %v is negative or longer than the tester has been in the run (%v)", what, time.Duration(d), time.Duration(most))
	}
	return nil
}

// refuse adds the refusals r to s's record and says the first of each
// kind in events.jsonl. Called with c.mu held.
func (c *controller) refuse(s *slot, r rundir.Refusals) {
	if !r.Any() {
		return
	}
	have := &s.rec.Refused
	first := (r.Duplicates > 0 && have.Duplicates == 0) || (r.Time > 0 && have.Time == 0) ||
		(r.Count > 0 && have.Count == 0) || (r.Messages > 0 && have.Messages == 0)
	have.Add(r)
	if first {
		c.events.Add("refused", s.rec.Slot, s.rec.ID, r.Reason)
		c.journal(s)
	}
}

// refuseMessage counts one message (or a part of one) refused for err.
// Called without c.mu.
func (c *controller) refuseMessage(s *slot, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refuse(s, rundir.Refusals{Messages: 1, Reason: err.Error()})
}

// addSat is a + b, saturated at the int64 limits.
func addSat(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// subSat is a − b, saturated at the int64 limits.
func subSat(a, b int64) int64 {
	if b == math.MinInt64 {
		return addSat(addSat(a, math.MaxInt64), 1)
	}
	return addSat(a, -b)
}
