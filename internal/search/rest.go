package search

// A step after a failed one starts with a rest: no load is offered until
// the calls the failed step left queued in the service are served (a
// second in which fewer than Settle × that step's load ended), at most
// MaxWarmup. Without it, an overloaded service's backlog drains into the
// next, lower step for a long time (a backlog of B calls at capacity X
// drains at X − load a second) and that step would fail on the backlog,
// not on its load.

// Offer is the load to offer in the step's next second: 0 while it rests,
// else its load.
func (st *Step) Offer() float64 {
	if st.resting {
		return 0
	}
	return st.load
}

// rest counts a second of the rest and ends it once the backlog is served.
func (st *Step) rest(s Second) bool {
	st.restS++
	if float64(s.calls()) <= st.cfg.Settle*st.after || st.restS >= secs(st.cfg.MaxWarmup) {
		st.resting = false
	}
	return st.over()
}
