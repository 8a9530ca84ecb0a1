package controller

import (
	"fmt"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
)

// clockTrust is what the controller knows of a tester's clock syncs
// besides their records (docs/design/002-time.md). Guarded by
// controller.mu.
type clockTrust struct {
	keyed   bool              // the tester was given a time key
	seen    bool              // a sync record came
	first   int64             // the first record's local time
	syncs   int               // records checked
	check   clock.Consistency // the records so far, for the next one
	suspect int               // records or bursts that disagree
}

// giveTimeKey registers with the controller's time server the time key
// of the tester of s, derived from its session on conn, and names it in
// d; none when the run's time server is another (sync.server), which
// holds no keys.
func (c *controller) giveTimeKey(s *slot, d *protocol.TestDesc, conn *protocol.Conn) {
	keys, ok := conn.Keys()
	if !ok {
		return
	}
	if d.TimeKeyID = c.times.issueKey(s.rec.Slot, keys); d.TimeKeyID != 0 {
		s.clk.keyed = true
	}
}

// noteSync takes what sync record r says of how far the tester's syncs
// can be trusted: authenticated or not, the time replies it refused, the
// probes of its burst that disagree.
func (c *controller) noteSync(s *slot, r protocol.SyncRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	auth := s.clk.keyed && r.Auth
	s.rec.ClockAuth = auth && (s.rec.ClockAuth || !s.clk.seen)
	s.clk.seen = true
	if r.Refused > s.rec.ClockRefused {
		if s.rec.ClockRefused == 0 {
			c.events.Add("clock-refused", s.rec.Slot, s.rec.ID, fmt.Sprintf(
				"the tester refused %d time replies: they failed authentication (forged or altered on the path); it used only authentic ones", r.Refused))
		}
		s.rec.ClockRefused = r.Refused
	}
	if r.Disagree > 0 {
		c.clockSuspect(s, fmt.Sprintf("%d of the %d probes of a sync disagree beyond their error bounds", r.Disagree, r.Probes))
	}
}

// clockAgrees checks sync record r against the tester's earlier ones:
// they must leave room for one clock drifting by at most
// clock.MaxDriftPPM. One that does not is physically impossible beside
// them: it is refused (not stored, counted), and the tester's syncs are
// suspect. The first syncs win: which of two that disagree is wrong
// cannot be told. Called by onSync with c.mu held.
func (c *controller) clockAgrees(s *slot, r clock.Record) bool {
	if s.clk.syncs == 0 {
		s.clk.first = r.LocalNs
	}
	s.clk.syncs++
	ok, lo, hi := s.clk.check.Check(r)
	if ok {
		return true
	}
	s.rec.ClockSyncsRefused++
	c.clockSuspect(s, fmt.Sprintf("sync %d (%.3f s after the first) says offset %.3f ms ± %.3f ms, where the syncs before it allow %.3f to %.3f ms (drift within %g ppm): refused",
		s.clk.syncs, float64(r.LocalNs-s.clk.first)/1e9, float64(r.OffsetNs)/1e6, float64(r.BoundNs)/1e6, lo/1e6, hi/1e6, clock.MaxDriftPPM))
	return false
}

// clockSuspect marks the tester's syncs suspect for reason, the first
// reason kept: an event and testers.csv clock_suspect say so, and the
// analysis lists the tester as suspect. Called with c.mu held.
func (c *controller) clockSuspect(s *slot, reason string) {
	s.clk.suspect++
	if s.rec.ClockSuspect != "" {
		return
	}
	s.rec.ClockSuspect = reason
	c.events.Add("clock-suspect", s.rec.Slot, s.rec.ID, reason+
		": some of its time replies were not what the time server sent; its samples are placed on the timeline by the syncs that agree with its first ones, which may be the wrong ones")
	c.journal(s)
}
