package analyze

import "github.com/diperf/diperf/internal/sample"

// Span bounds a run on the global timeline (Unix ns): nothing of the run
// can have happened outside it (pipeline.RunSpan says how it is found).
// The analysis refuses, and counts, a call whose start, end or intended
// start falls outside, and cuts the testers' lifetimes to it, so that
// its memory follows the run's real span whatever its files hold. The
// zero Span bounds nothing.
type Span struct {
	From, To int64
}

// Bounded reports whether s bounds anything.
func (s Span) Bounded() bool { return s.To > s.From }

// Holds reports whether time t is within s (always, when s is not set).
func (s Span) Holds(t int64) bool { return !s.Bounded() || (t >= s.From && t <= s.To) }

// HoldsCall reports whether every time of c is within s.
func (s Span) HoldsCall(c *sample.Call) bool {
	return s.Holds(c.Start) && s.Holds(c.End) && (c.Intended == 0 || s.Holds(c.Intended))
}

// clamp returns t cut to s.
func (s Span) clamp(t int64) int64 {
	if !s.Bounded() {
		return t
	}
	return min(max(t, s.From), s.To)
}

// cutTesters cuts the lifetimes of testers to s and returns how many
// were cut.
func (s Span) cutTesters(testers []Tester) int {
	n := 0
	for i := range testers {
		t := &testers[i]
		start, end := s.clamp(t.Start), s.clamp(t.End)
		if start != t.Start || end != t.End {
			n++
		}
		t.Start, t.End = start, end
	}
	return n
}

// outsideAcc counts the calls refused for falling outside the span.
type outsideAcc struct {
	perTester []uint64 // by the tester's position
	unknown   uint64   // of testers not in the run
}

// add counts call c, of the tester at position slot (-1: unknown).
func (o *outsideAcc) add(slot int) {
	if slot < 0 {
		o.unknown++
		return
	}
	o.perTester[slot]++
}

// merge adds b's counts to o.
func (o *outsideAcc) merge(b *outsideAcc) {
	for i, n := range b.perTester {
		o.perTester[i] += n
	}
	o.unknown += b.unknown
}
