package controller

import (
	"fmt"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// maxRefusedWhy bounds the tester's reason for a refused step kept in
// events.jsonl.
const maxRefusedWhy = 200

// checkLoadDone checks the load steps d, s's Done, says it took and
// refused: each is a step the controller sent, so together they are at
// most the steps sent to it (none in a run that is no search). Counts
// past that are refused and counted, and not taken. Called without c.mu.
func (c *controller) checkLoadDone(s *slot, d *checkedDone) {
	c.mu.Lock()
	var sent uint64
	if c.steer != nil {
		sent = uint64(c.steer.sent[s.rec.Slot])
	}
	c.mu.Unlock()
	if d.LoadSteps > sent || d.LoadRefused > sent-d.LoadSteps {
		c.refuseMessage(s, fmt.Errorf("the load steps of Done, %d taken and %d refused, are more than the %d sent to it",
			d.LoadSteps, d.LoadRefused, sent))
		d.LoadSteps, d.LoadRefused, d.LoadRefusedWhy = 0, 0, ""
		return
	}
	if c.steer == nil {
		return
	}
	detail := fmt.Sprintf("took %d of the %d load steps sent, refused %d", d.LoadSteps, sent, d.LoadRefused)
	if d.LoadRefused > 0 {
		detail += ": " + clip(d.LoadRefusedWhy, maxRefusedWhy)
	}
	c.events.Add("load-steps", s.rec.Slot, s.rec.ID, detail)
}

// clip is s cut to at most n bytes, marked when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// secondBound says why the testers limited the load in second t (active
// testers running), by the testers' health rows of it
// (analyze.SecondTesterBound); "" when they did not or none reported.
// Called with c.mu held.
func (c *controller) secondBound(t int64, active int) string {
	rows := c.health.second(t, len(c.slots))
	cpt := c.steer.cpt
	if st := c.steer; st.closed && len(st.to) > 0 {
		cpt = max(1, (wholeLoad(st.total)+len(st.to)-1)/len(st.to)) // the clients each runs now
	}
	return analyze.SecondTesterBound(rows, active, cpt)
}

// second returns the rows of second t of slots 0 to n−1.
func (hs *healthStore) second(t int64, n int) []sample.Health {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	var out []sample.Health
	for i := range n {
		if h, ok := hs.rows[healthKey{i, t}]; ok {
			out = append(out, h)
		}
	}
	return out
}

// writeSearch ends the search if the run ended first (its answer so far)
// and writes search.json and search.csv; the answer goes to out.
func (c *controller) writeSearch(out *Outcome) error {
	c.mu.Lock()
	st := c.steer
	if st == nil {
		c.mu.Unlock()
		return nil
	}
	if !st.over {
		st.over = true
		r := c.searchAnswer("the run ended before the search did")
		st.result = &r
		c.events.Add("search-end", -1, "", r.Verdict+": "+r.Why)
	}
	r := *st.result
	c.mu.Unlock()
	c.live.SetSearch(r)
	out.Search = &r
	if err := rundir.WriteSearch(c.o.Dir, r); err != nil {
		return fmt.Errorf("writing %s: %w", rundir.Search, err)
	}
	return nil
}
