package analyze

import (
	"slices"
	"sort"

	"github.com/diperf/diperf/internal/sample"
)

// shareAcc accumulates one Share per tester, each over its own window.
type shareAcc struct {
	win    []window // per tester
	use    []bool   // per tester: whether the tester has a window at all
	ok     []int    // per tester: successful calls ending in the window
	failed []int    // per tester: failed calls ending in the window
	off    []int    // per tester: offset of its durations in dur
	dur    []int64  // durations of the counted successful calls, by tester

	scratch []int64 // sort buffer
}

// newShareAcc prepares an accumulator for n testers.
func newShareAcc(n int) *shareAcc {
	return &shareAcc{
		win:    make([]window, n),
		use:    make([]bool, n),
		ok:     make([]int, n),
		failed: make([]int, n),
	}
}

// count tallies call c of tester t if it ends in t's window.
func (a *shareAcc) count(t int, c *Call) {
	if !a.use[t] || !a.win[t].contains(c.End) {
		return
	}
	switch c.Status {
	case sample.OK:
		a.ok[t]++
	case sample.Cancelled:
	default:
		a.failed[t]++
	}
}

// alloc sizes the duration buckets from the counts.
func (a *shareAcc) alloc() {
	a.off = make([]int, len(a.ok)+1)
	for t, n := range a.ok {
		a.off[t+1] = a.off[t] + n
	}
	a.dur = make([]int64, a.off[len(a.ok)])
}

// fill stores the duration of call c of tester t if it was counted; pos
// holds each tester's next free slot.
func (a *shareAcc) fill(t int, c *Call, pos []int) {
	if c.Status == sample.OK && a.use[t] && a.win[t].contains(c.End) {
		a.dur[pos[t]] = c.End - c.Start
		pos[t]++
	}
}

// share returns tester t's Share: okAll is the number of successful calls
// of every tester ending in its window, avgLoad the mean offered load there.
func (a *shareAcc) share(t, okAll int, avgLoad float64) Share {
	if !a.use[t] {
		return Share{}
	}
	seg := a.dur[a.off[t]:a.off[t+1]]
	a.scratch = sortInt64(seg, a.scratch)
	rt := rtStats(seg)
	s := Share{OK: a.ok[t], Failed: a.failed[t], MeanRTms: rt.Mean, P99RTms: rt.P99, AvgLoad: avgLoad}
	if okAll > 0 {
		s.Utilization = float64(a.ok[t]) / float64(okAll)
	}
	return s
}

// tally runs the two passes over the calls for every accumulator: counts,
// then durations.
func tally(calls []Call, slots testerSlots, accs ...*shareAcc) {
	for i := range calls {
		if t := slots.at(calls[i].Tester); t >= 0 {
			for _, a := range accs {
				a.count(t, &calls[i])
			}
		}
	}
	pos := make([][]int, len(accs))
	for k, a := range accs {
		a.alloc()
		pos[k] = slices.Clone(a.off[:len(a.ok)])
	}
	for i := range calls {
		if t := slots.at(calls[i].Tester); t >= 0 {
			for k, a := range accs {
				a.fill(t, &calls[i], pos[k])
			}
		}
	}
}

// countIn returns how many of the ascending times lie in window w.
func countIn(sorted []int64, w window) int {
	lo := sort.Search(len(sorted), func(i int) bool { return sorted[i] >= w.start })
	hi := sort.Search(len(sorted), func(i int) bool { return sorted[i] > w.end })
	return hi - lo
}
