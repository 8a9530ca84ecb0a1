package analyze

import (
	"cmp"
	"slices"
)

// window is a closed interval [start, end] of global time, ns.
type window struct {
	start, end int64
}

// contains reports whether instant t lies in the window.
func (w window) contains(t int64) bool {
	return t >= w.start && t <= w.end
}

// within reports whether the window lies inside [start, end].
func (w window) within(start, end int64) bool {
	return start <= w.start && end >= w.end
}

// peakWindow finds the peak window: the longest interval during which the
// most testers run at once, all the same testers throughout. Lifetimes count
// as half-open here, so a tester stopping at the instant another starts does
// not overlap it, and a window ends wherever a tester starts or stops (in a
// relay, the set changes and so does the window). Ties go to the earliest
// window. The testers active over the whole window are those whose [Start,
// End] contains it. With no tester of positive lifetime the window is the
// earliest start instant; with no testers it is zero and the count 0.
// (With many clients per tester, the lifetimes are the clients'.)
func peakWindow(lives []window) (window, int) {
	type event struct {
		t     int64
		delta int
	}
	evs := make([]event, 0, 2*len(lives))
	for _, t := range lives {
		if t.end > t.start {
			evs = append(evs, event{t.start, +1}, event{t.end, -1})
		}
	}
	if len(evs) == 0 {
		return instantPeak(lives)
	}
	slices.SortFunc(evs, func(a, b event) int { return cmp.Compare(a.t, b.t) })
	var best window
	most, count := 0, 0
	for i := 0; i < len(evs); {
		t := evs[i].t
		for ; i < len(evs) && evs[i].t == t; i++ {
			count += evs[i].delta
		}
		if i == len(evs) {
			break
		}
		// count testers run over [t, next event), a constant set.
		w := window{t, evs[i].t}
		if count > most || (count == most && w.end-w.start > best.end-best.start) {
			best, most = w, count
		}
	}
	return best, most
}

// instantPeak is the peak of lifetimes that all are zero: the earliest
// start instant and the number of lifetimes there.
func instantPeak(lives []window) (window, int) {
	if len(lives) == 0 {
		return window{}, 0
	}
	first := lives[0].start
	for _, t := range lives {
		first = min(first, t.start)
	}
	n := 0
	for _, t := range lives {
		if t.start == first {
			n++
		}
	}
	return window{first, first}, n
}

// lifetimes returns the testers' [Start, End].
func lifetimes(testers []Tester) []window {
	out := make([]window, len(testers))
	for i, t := range testers {
		out[i] = window{t.Start, t.End}
	}
	return out
}

// jain returns Jain's fairness index (Σx)²/(n·Σx²) of xs: 1 for a single
// tester, 0 for none or when every x is 0.
func jain(xs []int) float64 {
	switch len(xs) {
	case 0:
		return 0
	case 1:
		return 1
	}
	var sum, sq float64
	for _, x := range xs {
		sum += float64(x)
		sq += float64(x) * float64(x)
	}
	if sq == 0 {
		return 0
	}
	return sum * sum / (float64(len(xs)) * sq)
}
