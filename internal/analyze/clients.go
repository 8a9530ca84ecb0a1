package analyze

// clientInput is what building the per-tester figures needs.
type clientInput struct {
	calls   []Call
	testers []Tester // sorted by Index
	slots   testerSlots
	g       grid
	peak    window
	okEnds  []int64 // end times of every successful call, ascending
	cum     []float64
}

// loadQueries lists the times at which the load's prefix integral is needed:
// each tester's Start and End, then the peak window's start and end.
func loadQueries(testers []Tester, peak window) []int64 {
	q := make([]int64, 0, 2*len(testers)+2)
	for _, t := range testers {
		q = append(q, t.Start, t.End)
	}
	return append(q, peak.start, peak.end)
}

// buildClients computes every tester's Whole and Peak shares. A tester gets
// a Peak share only if it was active over the whole peak window.
func buildClients(ci clientInput) []Client {
	n := len(ci.testers)
	whole, peak := newShareAcc(n), newShareAcc(n)
	for i, t := range ci.testers {
		whole.win[i], whole.use[i] = window{t.Start, t.End}, true
		peak.win[i], peak.use[i] = ci.peak, ci.peak.within(t.Start, t.End)
	}
	tally(ci.calls, ci.slots, whole, peak)
	peakLoad := ci.avgLoad(ci.peak, 2*n, 2*n+1)
	peakOK := countIn(ci.okEnds, ci.peak)
	out := make([]Client, n)
	for i, t := range ci.testers {
		w := whole.win[i]
		out[i] = Client{
			Index:     t.Index,
			ID:        t.ID,
			Host:      t.Host,
			StartS:    ci.g.seconds(t.Start),
			EndS:      ci.g.seconds(t.End),
			Failed:    t.Failed,
			LatencyMs: t.LatencyMs,
			Whole:     whole.share(i, countIn(ci.okEnds, w), ci.avgLoad(w, 2*i, 2*i+1)),
			Peak:      peak.share(i, peakOK, peakLoad),
			Clock:     testerClock(t, ci.g),
		}
	}
	return out
}

// avgLoad is the time-weighted mean offered load over window w, from the
// prefix integrals at query indices a (w.start) and b (w.end); 0 for an
// empty window.
func (ci clientInput) avgLoad(w window, a, b int) float64 {
	span := ci.g.clamp(w.end) - ci.g.clamp(w.start)
	if span <= 0 {
		return 0
	}
	return (ci.cum[b] - ci.cum[a]) / float64(span)
}

// peakCounts returns the successful calls each tester active over the whole
// peak window completed inside it, for Jain's index.
func peakCounts(clients []Client, testers []Tester, peak window) []int {
	var xs []int
	for i, t := range testers {
		if peak.within(t.Start, t.End) {
			xs = append(xs, clients[i].Peak.OK)
		}
	}
	return xs
}

// testerClock puts a tester's clock figures on the run's time axis.
func testerClock(t Tester, g grid) TesterClock {
	c := TesterClock{MaxAbsOffsetMs: t.OffsetMs, MaxBoundMs: t.BoundMs, StartSkewMs: t.StartSkewMs,
		Synchronized: t.Synchronized, Syncs: make([]SyncPoint, len(t.Syncs))}
	for i, s := range t.Syncs {
		c.Syncs[i] = SyncPoint{T: g.seconds(s.T), OffsetMs: s.OffsetMs, RTTMs: s.RTTMs, BoundMs: s.BoundMs}
	}
	return c
}
