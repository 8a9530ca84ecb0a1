package controller

// journal writes a snapshot of slot s's record to the spool, so that a
// controller killed mid-run leaves, next to the samples, what it knew of
// every tester: `diperf analyze` rebuilds testers.csv from the last
// snapshot of each slot (see rundir.SpoolTesterType). It is called at
// every change of state: launch, admission, start, done and failure.
//
// The caller holds c.mu (every state change happens under it, and the
// snapshot must be of one state); journal takes the spool's own lock
// after it, never the other way round. A failed write is said in the event
// log (a few times per tester at most): the run goes on, and its end
// writes testers.csv from memory.
func (c *controller) journal(s *slot) {
	if c.spool == nil {
		return // the run's files are being written: the spool is closed
	}
	if err := c.spool.Tester(*s.rec); err != nil {
		c.events.Add("spool-error", s.rec.Slot, s.rec.ID, "tester record: "+err.Error())
	}
}
