package analyze

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
