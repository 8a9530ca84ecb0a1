package controller

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// offer sends total, the load over all testers, split evenly over run:
// the open model's rate total/n each, the closed model's total clients
// spread, all from one instant steerLead ahead. Seconds that begin
// before it are stale (another load's). Called with c.mu held.
func (c *controller) offer(total float64, run []*slot) {
	st := c.steer
	at := max(time.Now().Add(steerLead).UnixNano(), st.atNs+1)
	st.total, st.atNs, st.to = total, at, run
	c.events.Add("search-load", -1, "", fmt.Sprintf("load %.6g over %d testers from %d", total, len(run), at))
	for i, s := range run {
		ls := protocol.LoadStep{AtNs: at}
		if st.closed {
			ls.Active = uint32(spread(wholeLoad(total), len(run), i, st.cpt))
		} else {
			ls.Rate = total / float64(len(run))
		}
		c.sendLoad(s, ls)
	}
}

// sendLoad sends s's tester load step ls, with its next Seq. Called with
// c.mu held.
func (c *controller) sendLoad(s *slot, ls protocol.LoadStep) {
	st := c.steer
	st.sent[s.rec.Slot]++
	ls.Seq = st.sent[s.rec.Slot]
	p, err := json.Marshal(ls)
	if err != nil { // a LoadStep of finite numbers always marshals
		c.events.Add("search-error", s.rec.Slot, s.rec.ID, err.Error())
		return
	}
	c.send(s, protocol.TypeLoad, p)
}

// searchSynced parks a closed-model tester's clients at its first clock
// sync (every client runs until a tester's first step): no load is
// offered before the search begins. Called without c.mu.
func (c *controller) searchSynced(s *slot) {
	st := c.steer // set once, before any tester
	if st == nil || !st.closed {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.started || st.sent[s.rec.Slot] > 0 || len(s.rec.Syncs) == 0 || s.finished() {
		return
	}
	c.sendLoad(s, protocol.LoadStep{AtNs: time.Now().Add(steerLead).UnixNano()})
}

// park sends the testers of was that are not in run (lost, their
// connection perhaps still open) no load: a lost tester that still runs
// offers none that the search does not count. Called with c.mu held.
func (c *controller) park(was, run []*slot) {
	in := make(map[*slot]bool, len(run))
	for _, s := range run {
		in[s] = true
	}
	at := max(time.Now().Add(steerLead).UnixNano(), c.steer.atNs+1)
	for _, s := range was {
		if !in[s] && !s.over && s.conn != nil {
			c.sendLoad(s, protocol.LoadStep{AtNs: at})
		}
	}
}
