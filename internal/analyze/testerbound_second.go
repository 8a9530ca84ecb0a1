package analyze

import "github.com/diperf/diperf/internal/sample"

// SecondTesterBound says why the testers limited the load in one second
// of a run while it goes (a capacity search's steps, issue 24), by the
// rule of markTesterBound: rows are the testers' health rows of that
// second (one per tester, each checked already), active the testers that
// ran in it and cpt the clients each ran. "" when they did not limit it,
// or no tester reported its health.
func SecondTesterBound(rows []sample.Health, active, cpt int) string {
	ts := make(map[int]*testerHealth, len(rows))
	for _, h := range rows {
		t := ts[h.Slot]
		if t == nil {
			t = &testerHealth{}
			ts[h.Slot] = t
		}
		t.add(h, 1)
	}
	if len(ts) == 0 {
		return ""
	}
	return boundReason(ts, max(active, len(ts)), cpt)
}
