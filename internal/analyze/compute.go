package analyze

import (
	"errors"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// MinQuantum is the smallest aggregation quantum Compute accepts.
const MinQuantum = 10 * time.Millisecond

// Compute derives every metric of a run from its calls and testers.
//
// The time origin is the earliest tester start (the earliest call start if
// there are no testers), rounded down to a multiple of the quantum in Unix
// time; the quanta cover the run from there to the last
// call or tester end. Calls are attributed to the quantum in which they end;
// the offered load counts every call, whatever its class, as in flight over
// [Start, End). Calls before the origin are clipped to it. Calls of unknown
// testers count in the global figures only. Compute does not modify in.
func Compute(in *Input) (*Result, error) {
	if err := validate(in); err != nil {
		return nil, err
	}
	testers, slots, err := sortTesters(in.Testers)
	if err != nil {
		return nil, err
	}
	g := newGrid(span(in))
	pw, most := peakWindow(testers)
	load := sweepLoad(in.Calls, g, loadQueries(testers, pw))
	comp := tallyCompletions(in.Calls, g)
	quanta := buildQuanta(g, load, &comp, activeTesters(testers, g))
	clients := buildClients(clientInput{
		calls: in.Calls, testers: testers, slots: slots, g: g,
		peak: pw, okEnds: okEnds(in.Calls, len(comp.okDur)), cum: load.cum,
	})
	sortInt64(comp.okDur, nil)
	s := summarize(in, g, quanta, rtStats(comp.okDur))
	s.Peak = Peak{Testers: most}
	if most > 0 {
		s.Peak.StartS, s.Peak.EndS = g.seconds(pw.start), g.seconds(pw.end)
	}
	s.Fairness = Fairness{Jain: jain(peakCounts(clients, testers, pw))}
	s.OriginNs = g.origin
	return &Result{Name: in.Name, Origin: g.origin, Summary: s, Quanta: quanta, Clients: clients}, nil
}

// validate rejects input Compute cannot analyse.
func validate(in *Input) error {
	if in == nil {
		return errors.New("analyze: no input")
	}
	if in.Quantum < MinQuantum {
		return fmt.Errorf("analyze: quantum %v is below %v", in.Quantum, MinQuantum)
	}
	if len(in.Calls) == 0 && len(in.Testers) == 0 {
		return errors.New("analyze: no calls and no testers")
	}
	for i := range in.Calls {
		c := &in.Calls[i]
		if c.End < c.Start {
			return fmt.Errorf("analyze: call %d of tester %d ends before it starts", i, c.Tester)
		}
		if !c.Status.Valid() {
			return fmt.Errorf("analyze: call %d of tester %d: unknown status %v", i, c.Tester, c.Status)
		}
	}
	return nil
}

// span returns the run's origin, end and quantum, in ns.
func span(in *Input) (origin, end, qn int64) {
	first := true
	for _, t := range in.Testers {
		if first || t.Start < origin {
			origin = t.Start
		}
		if first || t.End > end {
			end = t.End
		}
		first = false
	}
	noTesters := first
	for i := range in.Calls {
		c := &in.Calls[i]
		if noTesters && (first || c.Start < origin) {
			origin = c.Start
		}
		if first || c.End > end {
			end = c.End
		}
		first = false
	}
	qn = int64(in.Quantum)
	// Quanta start on multiples of the quantum in Unix time, so that they
	// line up with other per-second views of the same run (a server's own
	// counters, Prometheus) and with the quanta of other runs.
	origin -= ((origin % qn) + qn) % qn
	return origin, end, qn
}

// okEnds returns the end times of the successful calls, ascending; n is
// their number.
func okEnds(calls []Call, n int) []int64 {
	ends := make([]int64, 0, n)
	for i := range calls {
		if calls[i].Status == sample.OK {
			ends = append(ends, calls[i].End)
		}
	}
	sortInt64(ends, nil)
	return ends
}
