package analyze

import "slices"

// Refused counts what was refused as impossible or repeated: by the
// controller at ingest (testers.csv's refusal columns, summed) and by the
// analysis (calls outside the run's span). None of it is in the figures.
// Nil in summary.json when nothing was refused.
type Refused struct {
	Duplicates uint64 `json:"duplicates"` // samples dropped at ingest: their (tester, seq) had come already
	Time       uint64 `json:"time"`       // samples refused at ingest: outside their tester's window
	Count      uint64 `json:"count"`      // samples refused at ingest: seq 0, or past what was produced
	Messages   uint64 `json:"messages"`   // sync records, Started, Done and batch counts refused at ingest
	// OutsideSpan counts the calls the analysis refused: a time outside
	// the run's span (Span), as a run directory written by hand or by a
	// diperf that took them may hold.
	OutsideSpan uint64 `json:"outside_span"`
	// Malformed counts the calls the analysis refused as no run can have
	// made them: ending before they start, or of a client index past the
	// clients each tester ran.
	Malformed uint64 `json:"malformed"`
	// TestersCut counts the testers whose start or stop the analysis cut
	// to the run's span.
	TestersCut int `json:"testers_cut"`
	// Testers lists the testers with any refusal, by index (at most
	// maxRefusedTesters of them; TestersWith counts them all).
	Testers     []TesterRefusal `json:"testers"`
	TestersWith int             `json:"testers_with_refusals"`
}

// TesterRefusal is what was refused of one tester, with the first
// refusal's reason.
type TesterRefusal struct {
	Index       int    `json:"index"`
	Duplicates  uint64 `json:"duplicates"`
	Time        uint64 `json:"time"`
	Count       uint64 `json:"count"`
	Messages    uint64 `json:"messages"`
	OutsideSpan uint64 `json:"outside_span"`
	Reason      string `json:"reason,omitempty"`
}

// maxRefusedTesters bounds Refused.Testers, so that summary.json stays
// small however many testers lied.
const maxRefusedTesters = 20

// any reports whether anything of t was refused.
func (t *TesterRefusal) any() bool {
	return t.Duplicates+t.Time+t.Count+t.Messages+t.OutsideSpan > 0
}

// refused sums the ingest refusals of the config and the calls the
// analysis refused; nil when there are none.
func (a *Accumulator) refused() *Refused {
	byIndex := map[int]*TesterRefusal{}
	for _, r := range a.cfg.Refused {
		byIndex[r.Index] = &r
	}
	for i, n := range a.outside.perTester {
		if n == 0 {
			continue
		}
		idx := a.testers[i].Index
		if byIndex[idx] == nil {
			byIndex[idx] = &TesterRefusal{Index: idx, Reason: "calls outside the run's span"}
		}
		byIndex[idx].OutsideSpan += n
	}
	r := &Refused{OutsideSpan: a.outside.unknown, TestersCut: a.cut}
	for _, t := range byIndex {
		if !t.any() {
			continue
		}
		r.Duplicates, r.Time, r.Count, r.Messages = r.Duplicates+t.Duplicates, r.Time+t.Time, r.Count+t.Count, r.Messages+t.Messages
		r.OutsideSpan += t.OutsideSpan
		r.Testers = append(r.Testers, *t)
	}
	if len(r.Testers) == 0 && r.OutsideSpan == 0 && r.TestersCut == 0 {
		return nil
	}
	slices.SortFunc(r.Testers, func(x, y TesterRefusal) int { return x.Index - y.Index })
	r.TestersWith = len(r.Testers)
	r.Testers = r.Testers[:min(len(r.Testers), maxRefusedTesters)]
	return r
}
