package monitor

import (
	"sort"
)

// merge joins consecutive scrape intervals into windows of at least
// minCalls calls on either side: a window closes once it holds them, a
// gap between scrapes closes it as it is, and a last window short of them
// joins the one before it when they touch.
func merge(ivs []Interval, minCalls int) []Interval {
	var out []Interval
	open := false
	for _, iv := range ivs {
		if open && out[len(out)-1].ToNs != iv.FromNs {
			open = false // a gap between scrapes: the window stays short
		}
		if !open {
			out = append(out, iv)
			open = true
		} else {
			w := &out[len(out)-1]
			w.ToNs, w.Scrapes = iv.ToNs, w.Scrapes+iv.Scrapes
			w.Clients, w.Server = w.Clients+iv.Clients, w.Server+iv.Server
		}
		if w := &out[len(out)-1]; enough(w, minCalls) {
			w.Checked, open = true, false
		}
	}
	if n := len(out); n >= 2 && !out[n-1].Checked && out[n-2].Checked && out[n-2].ToNs == out[n-1].FromNs {
		w, last := &out[n-2], out[n-1]
		w.ToNs, w.Scrapes = last.ToNs, w.Scrapes+last.Scrapes
		w.Clients, w.Server = w.Clients+last.Clients, w.Server+last.Server
		out = out[:n-1]
	}
	for i := range out {
		out[i].Diff, out[i].Pct = difference(out[i].Server, out[i].Clients)
	}
	return out
}

// enough: w holds at least minCalls calls on either side.
func enough(w *Interval, minCalls int) bool {
	return w.Clients >= minCalls || w.Server >= float64(minCalls)
}

// difference is server - clients and its magnitude in % of server (100
// when the server counted nothing and the clients did).
func difference(server float64, clients int) (float64, float64) {
	d := server - float64(clients)
	return d, pctOf(d, server)
}

// near counts, for a boundary, the calls either view may have counted on
// the other side of it.
type near struct {
	ends              []End // sorted by Ns
	half              map[int64]int64
	maxEarly, maxLate int64
	refused           int
}

// newNear indexes ends (sorted) and the scrapes' half durations; a half
// duration that is negative or longer than half the shortest scrape
// interval touching its boundary is refused (counted, taken as 0).
func newNear(ends []End, reads []Read, incs []Increase) *near {
	n := &near{ends: ends, half: map[int64]int64{}}
	for _, e := range ends {
		n.maxEarly, n.maxLate = max(n.maxEarly, e.Early), max(n.maxLate, e.Late)
	}
	span := map[int64]int64{}
	for _, in := range incs {
		for _, at := range []int64{in.FromNs, in.ToNs} {
			if s, ok := span[at]; !ok || in.ToNs-in.FromNs < s {
				span[at] = in.ToNs - in.FromNs
			}
		}
	}
	for _, r := range reads {
		s, ok := span[r.AtNs]
		if !ok {
			continue
		}
		if r.HalfNs < 0 || r.HalfNs > s/2 {
			n.refused++
			continue
		}
		n.half[r.AtNs] = r.HalfNs
	}
	return n
}

// count is how many calls the server may have counted while its counter
// was read at boundary at: those whose count, between Early before and
// Late after their stamp, may fall within the read, HalfNs either side
// of at.
func (n *near) count(at int64) int {
	h := n.half[at]
	lo := sort.Search(len(n.ends), func(i int) bool { return n.ends[i].Ns >= at-h-n.maxLate })
	c := 0
	for _, e := range n.ends[lo:] {
		if e.Ns-n.maxEarly >= at+h {
			break
		}
		if e.Ns+e.Late >= at-h && e.Ns-e.Early <= at+h {
			c++
		}
	}
	return c
}
