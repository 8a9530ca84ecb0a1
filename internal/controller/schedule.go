package controller

import (
	"context"
	"fmt"
	"github.com/diperf/diperf/internal/clock"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/testbed"
)

// schedule launches the testers one by one, one every tester_start_interval
// (DiPerF's ramp-up). With a synchronized start it launches them all at
// once, a few ms apart, and tells each the global time to start at. Either
// way it never launches faster than experiment.MaxLaunchRate per second,
// even to catch up after a slow launch. accept starts taking testers'
// connections: once the slots they bind to exist, so that a tester that
// dialled early (engines start testers before their controller: they
// wait in the listen backlog) finds its slot.
func (c *controller) schedule(ctx context.Context, accept func()) {
	c.started = time.Now()
	c.events.Add("run-start", -1, "", c.exp.Name)
	if bs, ok := c.o.Testbed.(testbed.BatchStarter); ok {
		c.launchAll(ctx, bs, accept)
		return
	}
	accept() // each slot is made before its tester starts
	launchEvery := c.exp.Schedule.TesterStartInterval.D()
	if c.exp.Schedule.SynchronizedStart {
		launchEvery = syncLaunchStagger
		c.t0 = c.started.Add(syncStartLead(c.exp.Schedule.Testers))
		c.events.Add("synchronized-start", -1, "", c.t0.UTC().Format(time.RFC3339Nano))
	}
	var last time.Time
	for i := 0; i < c.exp.Schedule.Testers; i++ {
		if !clock.SleepUntil(ctx, launchAt(c.started, i, launchEvery, last)) {
			c.events.Add("interrupted", -1, "", "before every tester was started")
			return
		}
		if c.stoppingAll() { // an abort (the sweep runs meanwhile): launch no more
			n := c.exp.Schedule.Testers
			c.events.Add("interrupted", -1, "", fmt.Sprintf("every tester was told to stop; %d of %d never started", n-i, n))
			return
		}
		last = time.Now()
		c.launch(i)
	}
}

// stoppingAll reports whether every tester was told to stop.
func (c *controller) stoppingAll() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

// batchStartLead is how long after the run starts the first tester of a
// BatchStarter testbed starts its client loop: testers that join later
// than their planned start begin at once.
const batchStartLead = 2 * time.Second

// launchAll starts every tester at once through a BatchStarter; the
// ramp-up is kept by planned start times, tester i at T0 + i ×
// tester_start_interval, and each must join within the testbed's wait.
// Testers' connections are accepted once every slot exists.
func (c *controller) launchAll(ctx context.Context, bs testbed.BatchStarter, accept func()) {
	c.t0 = c.started.Add(batchStartLead)
	n := c.exp.Schedule.Testers
	slots := make([]*slot, n)
	specs := make([]testbed.Spec, n)
	for i := range n {
		slots[i] = c.newSlot(i)
		specs[i] = c.spec(slots[i].rec)
	}
	accept()
	join := c.ready.JoinWait
	if join <= 0 {
		join = c.o.JoinTimeout
	}
	c.events.Add("batch-start", -1, "", fmt.Sprintf("%d testers, joining within %v", n, join))
	hs, err := bs.StartAll(ctx, specs)
	if err == nil && len(hs) != n {
		err = fmt.Errorf("the testbed started %d testers of %d", len(hs), n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, s := range slots {
		var h testbed.Handle
		if err == nil {
			h = hs[i]
		}
		c.launched(s, h, err, join)
	}
}

// minLaunchGap is the least time between two launches.
const minLaunchGap = time.Second / experiment.MaxLaunchRate

// launchAt is when tester i is launched: every interval from start, but
// never less than minLaunchGap after the previous launch (at last).
func launchAt(start time.Time, i int, every time.Duration, last time.Time) time.Time {
	at := start.Add(time.Duration(i) * every)
	if !last.IsZero() {
		at = maxTime(at, last.Add(minLaunchGap))
	}
	return at
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Synchronized start: testers are launched this far apart (so that process
// start-up does not pile up), and slot 0 starts once every tester has had
// time to start, join and sync: a second plus 60 ms per tester.
const syncLaunchStagger = 10 * time.Millisecond

func syncStartLead(testers int) time.Duration {
	return time.Second + time.Duration(testers)*60*time.Millisecond
}

// plannedStart returns when slot i is to start its client loop (global Unix
// ns), or 0 when the start is not synchronized.
func (c *controller) plannedStart(i int) int64 {
	if c.t0.IsZero() {
		return 0
	}
	return c.t0.Add(time.Duration(i) * c.exp.Schedule.TesterStartInterval.D()).UnixNano()
}

// waitAll watches the slots until every one has finished, stopping a tester
// that overruns its time and killing one that ignores the stop. When ctx is
// cancelled it stops everyone.
func (c *controller) waitAll(ctx context.Context) {
	tk := time.NewTicker(sweepEvery)
	defer tk.Stop()
	interrupted := false
	for {
		select {
		case <-ctx.Done():
			if !interrupted {
				interrupted = true
				c.events.Add("interrupted", -1, "", "stopping every tester")
				c.stopAll()
			}
		case <-tk.C:
			c.tickAwake()
		}
		if c.sweep() {
			c.events.Add("all-finished", -1, "", "")
			return
		}
	}
}

// sweep tends the slots due by now (dueHeap) and reports whether every
// slot has finished, none lost with its connection open still waited for.
func (c *controller) sweep() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.tending = c.popDue(now, c.tending[:0])
	for i, s := range c.tending {
		c.tend(s, now)
		c.tending[i] = nil
	}
	if c.unfinished > 0 { // schedule has launched every slot it will by now
		return false
	}
	for s := range c.lostOpen {
		if c.waitLost(s, now) {
			return false
		}
	}
	return true
}

// enforce applies s's deadlines: a tester that never joined fails, one
// that ran past its time is told to stop, one that did not stop when told
// is killed. Called with c.mu held.
func (c *controller) enforce(s *slot, now time.Time) {
	if s.finished() {
		return
	}
	switch {
	case s.state == launched && now.After(s.deadline):
		c.markFailed(s, "never joined the controller within the join timeout"+engineSays(s.handle))
	case !s.stopSent.IsZero() && now.Sub(s.stopSent) > c.stopGrace():
		c.markFailed(s, "did not stop when told to; killed")
	case s.stopSent.IsZero() && !s.deadline.IsZero() && s.state != launched && now.After(s.deadline):
		c.stop(s, "ran past its duration")
	}
}

// stopAll tells every running tester to stop now.
func (c *controller) stopAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopAllLocked("interrupted")
}

// stopAllLocked is stopAll with c.mu held; failures it causes do not
// count against the failure policy.
func (c *controller) stopAllLocked(why string) {
	c.stopping = true
	for _, s := range c.slots {
		switch {
		case s.finished():
		case s.conn == nil:
			c.markFailed(s, why+" before it joined")
		default:
			c.stop(s, why)
		}
	}
}

func (c *controller) stop(s *slot, why string) {
	s.stopSent = time.Now()
	c.poke(s)
	c.events.Add("stop-sent", s.rec.Slot, s.rec.ID, why)
	c.send(s, protocol.TypeStop, nil) // a tester that cannot take it is lost, or killed after stopGrace
}

// engineSays is what the testbed's engine knows of a tester that never
// joined (testbed.StatusReporter), as a suffix of its failure reason.
func engineSays(h testbed.Handle) string {
	if r, ok := h.(testbed.StatusReporter); ok {
		if st := r.Status(); st != "" {
			return "; " + st
		}
	}
	return ""
}
