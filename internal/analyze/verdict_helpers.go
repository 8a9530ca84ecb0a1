package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// fallback is the highest offered load and the throughput at the highest
// loads of pts, not saturated.
func fallback(pts []loadPoint) Saturation {
	var s Saturation
	if len(pts) == 0 {
		return s
	}
	pts = slices.Clone(pts)
	slices.SortFunc(pts, cmpL)
	top := max(int(math.Ceil(plateauShare*float64(len(pts)))), 1)
	s.Throughput = typicalX(pts[len(pts)-top:])
	for _, p := range pts {
		s.Load = max(s.Load, p.inFlight)
	}
	return s
}

// cmpL orders points by l.
func cmpL(a, b loadPoint) int { return cmp.Compare(a.l, b.l) }

// boundEvidence says how many of pts were tester-bound.
func boundEvidence(pts []loadPoint, where string) string {
	n := 0
	for _, p := range pts {
		if p.bound != "" {
			n++
		}
	}
	return fmt.Sprintf("%d of the %d %s were tester-bound", n, len(pts), where)
}

// pointsTesterBound returns the most frequent TesterBound reason of pts when
// more than verdictTesterBoundMax of them are tester-bound.
func pointsTesterBound(pts []loadPoint) (string, bool) {
	byWhy := map[string]int{}
	n := 0
	for _, p := range pts {
		if p.bound != "" {
			byWhy[p.bound]++
			n++
		}
	}
	if len(pts) == 0 || float64(n) <= verdictTesterBoundMax*float64(len(pts)) {
		return "", false
	}
	whys := make([]string, 0, len(byWhy))
	for w := range byWhy {
		whys = append(whys, w)
	}
	slices.SortFunc(whys, func(a, b string) int { return cmp.Or(cmp.Compare(byWhy[b], byWhy[a]), cmp.Compare(a, b)) })
	return whys[0], true
}

// openKnee is the saturation load of an open-model run: N* = X*·R0, R0
// the call-weighted response time (ms) of the quanta at offered rates up to
// half the plateau's lowest, bounded by the loads in flight seen; the
// median load of the plateau when R0 is unknown.
func openKnee(loaded, hi []loadPoint, x float64) float64 {
	light := loaded[:sort.Search(len(loaded), func(i int) bool { return loaded[i].l > hi[0].l/2 })]
	loads := make([]float64, len(hi))
	for i, p := range hi {
		loads[i] = p.inFlight
	}
	slices.Sort(loads)
	med := loads[len(loads)/2]
	sum, n := rtSum(light)
	if n == 0 {
		return med
	}
	return min(x*sum/float64(n)/1000, loads[len(loads)-1])
}

// Text is the verdict in the words every view uses: "saturated at load N*,
// throughput X* calls/s", "not saturated within the tested range (capacity
// ≥ X calls/s)", "limited by the testers (reason)" or "too little data to
// tell (why)". A summary written before verdicts reads as before.
func (s Saturation) Text() string {
	switch s.Verdict {
	case VerdictSaturated:
		return fmt.Sprintf("saturated at load %s, throughput %s calls/s", f1(s.Load), f1(s.Throughput))
	case VerdictNotSaturated:
		return fmt.Sprintf("not saturated within the tested range (capacity ≥ %s calls/s)", f1(s.CapacityAtLeast))
	case VerdictTesterLimited:
		return "limited by the testers (" + s.Reason + ")"
	case VerdictTooLittleData:
		return "too little data to tell (" + s.Reason + ")"
	}
	if s.Saturated {
		return fmt.Sprintf("saturated at load %s, %s calls/s", f1(s.Load), f1(s.Throughput))
	}
	return fmt.Sprintf("not saturated (*): highest load %s, %s calls/s", f1(s.Load), f1(s.Throughput))
}

// topShare is how close to the highest load a quantum counts as at the
// highest loads tested.
const topShare = 0.95

// topThroughput is the typical throughput of the points of pts within 5%
// of the highest l, at least the plateauMin highest.
func topThroughput(pts []loadPoint) float64 {
	pts = slices.Clone(pts)
	slices.SortFunc(pts, cmpL)
	top := from(pts, topShare*pts[len(pts)-1].l)
	if len(top) < plateauMin {
		top = pts[max(len(pts)-plateauMin, 0):]
	}
	return typicalX(top)
}
