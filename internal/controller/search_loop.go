package controller

import (
	"fmt"
	"slices"

	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/search"
	"github.com/diperf/diperf/internal/stats"
)

// watchSearch has each second, as it becomes final (live.Lag after it
// ends), fed to the search (searchSecond).
func (c *controller) watchSearch() {
	if c.steer == nil {
		return
	}
	c.live.OnFinal(c.searchSecond)
}

// searchSecond takes one final second: before the search began it only
// checks whether it may begin; then the second goes to the current step,
// and a step decided moves the load (or ends the search).
func (c *controller) searchSecond(s live.Second, b *stats.Bucket) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.steer
	if st.over || c.stopping || c.aborted || c.ended {
		return
	}
	if !st.started {
		if c.searchReady() {
			c.startSearch()
		}
		return
	}
	run := c.steeredRunning()
	if len(run) == 0 {
		c.endSearch("every tester ended before the search did")
		return
	}
	if !sameSlots(run, st.to) { // a tester ended: its share goes to the others
		c.park(st.to, run)
		c.offer(st.total, run)
	}
	if st.step.Add(c.searchInput(s, b)) {
		c.stepDecided(run)
		return
	}
	if off := st.step.Offer(); off != st.total { // its rest is over
		c.offer(off, run)
	}
}

// searchInput is final second s, with its bucket b, as the search
// takes it. Called with c.mu held.
func (c *controller) searchInput(s live.Second, b *stats.Bucket) search.Second {
	st := c.steer
	sec := search.Second{T: s.T, OK: s.OK, Failed: s.Failed, RT: b, Stale: s.T*1e9 < st.atNs,
		TesterBound: c.secondBound(s.T, s.Active)}
	if !st.closed {
		sec.Offered = st.total
	}
	return sec
}

// startSearch begins the search at its first load. Called with c.mu held.
func (c *controller) startSearch() {
	st := c.steer
	st.started = true
	run := c.steeredRunning()
	st.step = st.searcher.NewStep(st.searcher.First())
	c.events.Add("search-start", -1, "", fmt.Sprintf("%d testers running and synced; first load %.4g", len(run), st.step.Load()))
	c.showUnderWay()
	c.offer(st.step.Offer(), run)
}

// showUnderWay gives the dashboard the search so far with the step under
// way last, undecided (its decision empty), so that it shows the load
// being tried, not only the steps decided.
func (c *controller) showUnderWay() {
	st := c.steer
	r := st.searcher.Result()
	r.Steps = append(slices.Clip(r.Steps), search.StepRecord{Step: len(r.Steps) + 1, Load: st.step.Load()})
	c.live.SetSearch(r)
}

// stepDecided takes the decided step's record to the searcher: the next
// step's load is sent, or the search ends. Called with c.mu held.
func (c *controller) stepDecided(run []*slot) {
	st := c.steer
	rec := st.step.Record()
	next, done := st.searcher.Next(rec)
	why := fmt.Sprintf("step %d, load %.4g: %s (%s)", rec.Step, rec.Load, rec.Decision, rec.Why)
	if !done {
		why += fmt.Sprintf("; next load %.4g", next)
	}
	c.events.Add("search-step", -1, "", why)
	if c.o.Progress != nil {
		fmt.Fprintf(c.o.Progress, "search: %s\n", why)
	}
	if done {
		c.endSearch("")
		return
	}
	st.step = st.searcher.NewStep(next)
	c.showUnderWay()
	c.offer(st.step.Offer(), run)
}

// endSearch ends the search with its answer so far and stops every
// tester still running; why, when set, is why it ended before its
// verdict. Called with c.mu held.
func (c *controller) endSearch(why string) {
	st := c.steer
	st.over = true
	r := c.searchAnswer(why)
	st.result = &r
	c.live.SetSearch(r)
	c.events.Add("search-end", -1, "", r.Verdict+": "+r.Why)
	if c.o.Progress != nil {
		fmt.Fprintf(c.o.Progress, "search: %s: %s\n", r.Verdict, r.Why)
	}
	if !c.stopping {
		c.stopAllLocked("the search ended")
	}
}

// searchAnswer is the searcher's result; why, when set, says why it
// ended without a verdict of its own. A search that never began has no
// data. Called with c.mu held.
func (c *controller) searchAnswer(why string) search.Result {
	st := c.steer
	r := st.searcher.Result()
	switch {
	case !st.started:
		r.Verdict, r.Why = search.VerdictNoData, "the search never began: not every tester ran and synced its clock"
	case why != "" && r.Verdict == search.VerdictBudgetOut:
		r.Why = why + ": " + bracketWords(r)
	}
	return r
}

// bracketWords is what a search that was cut short knows, in words.
func bracketWords(r search.Result) string {
	lo, hi := r.Interval[0], r.Interval[1]
	switch {
	case lo == nil && hi == nil:
		return "no load was decided yet"
	case lo == nil:
		return fmt.Sprintf("no load met every objective; %.4g failed", *hi)
	case hi == nil:
		return fmt.Sprintf("%.4g met every objective, no load failed yet", *lo)
	}
	return fmt.Sprintf("the capacity lies in [%.4g, %.4g]", *lo, *hi)
}

// searchReady reports whether the search may begin: every planned tester
// was launched and each is running with its clock synced (a tester takes
// steps only then) or has finished, and one at least is running. Called
// with c.mu held.
func (c *controller) searchReady() bool {
	if len(c.slots) < c.exp.Schedule.Testers {
		return false
	}
	n := 0
	for _, s := range c.slots {
		switch {
		case s.finished():
		case s.state != running || len(s.rec.Syncs) == 0:
			return false
		default:
			n++
		}
	}
	return n > 0
}

// steeredRunning is the testers the load is split over: running, synced,
// not told to stop. Called with c.mu held.
func (c *controller) steeredRunning() []*slot {
	var out []*slot
	for _, s := range c.slots {
		if s.state == running && len(s.rec.Syncs) > 0 && s.stopSent.IsZero() {
			out = append(out, s)
		}
	}
	return out
}

// sameSlots reports whether a and b are the same testers in the same order.
func sameSlots(a, b []*slot) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
