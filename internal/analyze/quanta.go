package analyze

import (
	"slices"

	"github.com/diperf/diperf/internal/sample"
)

// numClasses is the number of known status classes.
var numClasses = len(sample.Statuses())

// completions tallies the calls by the quantum in which they end.
type completions struct {
	ok     []int     // per quantum: successful calls
	failed []int     // per quantum: failed calls (not OK, not cancelled)
	errs   []int     // per quantum × class: non-OK calls
	rt     []RTStats // per quantum: response time of the successful calls
	okDur  []int64   // durations (ns) of all successful calls, grouped by quantum
}

// tallyCompletions attributes every call to the quantum holding its end and
// computes the exact response-time statistics of each quantum: the durations
// of the successful calls are bucketed by quantum (a counting sort, O(n)),
// then each bucket is sorted.
func tallyCompletions(calls []Call, g grid) completions {
	c := completions{
		ok:     make([]int, g.n),
		failed: make([]int, g.n),
		errs:   make([]int, g.n*numClasses),
		rt:     make([]RTStats, g.n),
	}
	for i := range calls {
		q := g.index(calls[i].End)
		switch st := calls[i].Status; st {
		case sample.OK:
			c.ok[q]++
		case sample.Cancelled:
			c.errs[q*numClasses+int(st)]++
		default:
			c.failed[q]++
			c.errs[q*numClasses+int(st)]++
		}
	}
	off := make([]int, g.n+1)
	for q, n := range c.ok {
		off[q+1] = off[q] + n
	}
	c.okDur = make([]int64, off[g.n])
	pos := slices.Clone(off[:g.n])
	for i := range calls {
		if calls[i].Status == sample.OK {
			q := g.index(calls[i].End)
			c.okDur[pos[q]] = calls[i].End - calls[i].Start
			pos[q]++
		}
	}
	var scratch []int64
	for q := range g.n {
		seg := c.okDur[off[q]:off[q+1]]
		scratch = sortInt64(seg, scratch)
		c.rt[q] = rtStats(seg)
	}
	return c
}

// errorMap returns the non-zero class counts of quantum q, or nil.
func (c *completions) errorMap(q int) map[string]int {
	var m map[string]int
	for k, n := range c.errs[q*numClasses : (q+1)*numClasses] {
		if n > 0 {
			if m == nil {
				m = make(map[string]int)
			}
			m[sample.Status(k).String()] = n
		}
	}
	return m
}

// activeTesters counts per quantum the testers whose [Start, End] overlaps
// it, with a difference array (O(testers + quanta)).
func activeTesters(testers []Tester, g grid) []int {
	diff := make([]int, g.n+1)
	for _, t := range testers {
		diff[g.index(t.Start)]++
		diff[g.lastIndex(t.Start, t.End)+1]--
	}
	active := make([]int, g.n)
	run := 0
	for q := range g.n {
		run += diff[q]
		active[q] = run
	}
	return active
}

// buildQuanta assembles the per-quantum time series.
func buildQuanta(g grid, load loadCurve, c *completions, active []int) []Quantum {
	qs := make([]Quantum, g.n)
	qsec := float64(g.qn) / 1e9
	for q := range qs {
		qs[q] = Quantum{
			T:          float64(int64(q)*g.qn) / 1e9,
			Load:       load.area[q] / float64(g.qn),
			LoadMax:    load.max[q],
			Active:     active[q],
			Throughput: float64(c.ok[q]) / qsec,
			OK:         c.ok[q],
			Failed:     c.failed[q],
			RT:         c.rt[q],
			Errors:     c.errorMap(q),
		}
	}
	return qs
}
