package analyze

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/diperf/diperf/internal/stats"
)

// Saturation detection.
//
// The saturation point is the offered load at which throughput stops rising.
// It is found from the per-quantum points (L = offered load, X = throughput)
// by fitting the simplest saturating model, X = b·min(L, k): a line through
// the origin that turns flat at the knee k. For a given k the best slope b
// has a closed form (least squares, b = Σf·X / Σf², f = min(L, k)), so the
// fit scans every distinct load as a candidate knee and keeps the one with
// the least squared error; prefix sums over the points sorted by load make
// the scan O(m log m). The plateau throughput is the median throughput of
// the points with L ≥ 1.1·k (L ≥ k if fewer than 3 of those).
//
// Why this method: a least-squares fit over all points is robust to the
// noise of single quanta, and ramp-up and ramp-down quanta (low load, low
// throughput) simply lie on the rising branch instead of biasing the knee;
// the median makes the plateau robust to outliers.
//
// The fit always finds some knee, so the data must show a plateau before
// the service is called saturated: at least max(3, 10% of the points) lie at
// L ≥ 1.1·k, and their mean throughput is below 0.85 times what the straight
// line would predict there (b·mean L). Otherwise the service did not
// saturate, and the result is the highest load with the median throughput
// of the top 10% of points by load.

// The knee k of the fit is where the fitted line meets the plateau; with a
// soft knee and few quanta on the rising branch it drifts. So when response
// times are known, the saturation load is taken from the operational laws
// instead: by Little's law X = L / R, so the load at which the plateau
// throughput X* is reached without queueing is N* = X* · R0, R0 being the
// response time at light load (the knee of the asymptotic bounds of
// Denning and Buzen, N* = (D + Z) / Dmax). R0 is the call-weighted mean
// response time of the quanta whose load is at most half the fitted knee
// (the lightest tenth of the quanta if there are none), of the rise alone
// when quanta of the rise (before the highest load) hold calls: a light
// quantum of the fall holds calls that waited in the queue. N* is used
// when it lies within the loads seen; otherwise the fitted k stands.

// A plateau must also be flat while the load grew on it: a rising branch
// that merely bends (response times growing with contention before the
// capacity is reached) also falls below the line. The plateau's points,
// sorted by load, are split into a lower and an upper half: the upper
// half's mean load is at least plateauGrowth times the lower half's, and
// the throughput grew by less than plateauElasticity of the load's
// relative growth (a straight line grows by 1 of it, X ∝ √L by about ½).

// Saturation fit thresholds, see above.
const (
	plateauMargin     = 1.1  // points with L ≥ plateauMargin·k form the plateau
	plateauShare      = 0.1  // the plateau holds at least this share of points
	plateauMin        = 3    // and at least this many points
	plateauDrop       = 0.85 // plateau throughput below this share of the line
	plateauGrowth     = 1.1  // the load grew at least this much along the plateau
	plateauElasticity = 0.25 // and the throughput by less than this share of it
)

// loadPoint is one quantum's offered load and throughput, with the mean
// response time (ms) of its n successful calls.
//
// In an open-model run l is the offered arrival rate (calls/s) and
// inFlight the offered load; bound is the quantum's TesterBound.
type loadPoint struct {
	l, x     float64
	rt       float64
	n        int
	inFlight float64
	bound    string
	rise     bool // a quantum of the rise, before the highest load (see lightPoints)
}

// saturation finds the saturation point of the (load, throughput) points.
func saturation(pts []loadPoint) Saturation {
	s, _ := fitSaturation(pts)
	return s
}

// fitSaturation finds the saturation point of the (load, throughput)
// points, and when saturated the plateau's points (sorted by load).
func fitSaturation(pts []loadPoint) (Saturation, []loadPoint) {
	pts = slices.Clone(pts)
	if len(pts) == 0 {
		return Saturation{}, nil
	}
	slices.SortFunc(pts, func(a, b loadPoint) int { return cmp.Compare(a.l, b.l) })
	k, b, ok := fitKnee(pts)
	if ok {
		hi := from(pts, plateauMargin*k)
		need := max(plateauMin, int(math.Ceil(plateauShare*float64(len(pts)))))
		if len(hi) >= need && meanX(hi) < plateauDrop*b*meanL(hi) && flat(hi) {
			x := plateau(pts, k)
			return Saturation{Saturated: true, Load: littleKnee(pts, k, x), Throughput: x}, hi
		}
	}
	top := int(math.Ceil(plateauShare * float64(len(pts))))
	return Saturation{
		Load:       pts[len(pts)-1].l,
		Throughput: typicalX(pts[len(pts)-max(top, 1):]),
	}, nil
}

// fitKnee fits X = b·min(L, k) to pts (sorted by load) by least squares over
// the candidate knees k = each distinct load. ok is false when no candidate
// has a positive load.
func fitKnee(pts []loadPoint) (k, b float64, ok bool) {
	m := len(pts)
	// Prefix sums over the first j points: Σ L·X, Σ L², Σ X.
	lx, ll, sx := make([]float64, m+1), make([]float64, m+1), make([]float64, m+1)
	var xx float64
	for i, p := range pts {
		lx[i+1] = lx[i] + p.l*p.x
		ll[i+1] = ll[i] + p.l*p.l
		sx[i+1] = sx[i] + p.x
		xx += p.x * p.x
	}
	best := math.Inf(1)
	for j := range m {
		if j+1 < m && pts[j+1].l == pts[j].l {
			continue // not the last point at this load
		}
		kj, rest := pts[j].l, float64(m-j-1)
		fx := lx[j+1] + kj*(sx[m]-sx[j+1])
		ff := ll[j+1] + kj*kj*rest
		if ff <= 0 {
			continue
		}
		if sse := xx - fx*fx/ff; sse < best {
			best, k, b, ok = sse, kj, fx/ff, true
		}
	}
	return k, b, ok
}

// plateau is the typical throughput of the points with L ≥ 1.1·k, or of
// those with L ≥ k when fewer than plateauMin.
func plateau(pts []loadPoint, k float64) float64 {
	hi := from(pts, plateauMargin*k)
	if len(hi) < plateauMin {
		hi = from(pts, k)
	}
	return typicalX(hi)
}

// sparseCalls is the median count of calls per quantum below which a
// quantum's throughput is too coarse for a median: with a 10 ms quantum
// and 20 calls/s, quanta hold 0 or 1 call and their median is 0.
const sparseCalls = 10

// typicalX is the median throughput of pts, robust to a stalled quantum,
// or their mean when quanta hold too few calls for the median to mean
// anything.
func typicalX(pts []loadPoint) float64 {
	ns := make([]float64, len(pts))
	for i, p := range pts {
		ns[i] = float64(p.n)
	}
	if stats.Median(ns) < sparseCalls {
		return meanX(pts)
	}
	return medianX(pts)
}

// from returns the points (sorted by load) with L ≥ l.
func from(pts []loadPoint, l float64) []loadPoint {
	return pts[sort.Search(len(pts), func(i int) bool { return pts[i].l >= l }):]
}

// meanX is the mean throughput of pts.
func meanX(pts []loadPoint) float64 {
	var s float64
	for _, p := range pts {
		s += p.x
	}
	return s / float64(len(pts))
}

// meanL is the mean load of pts.
func meanL(pts []loadPoint) float64 {
	var s float64
	for _, p := range pts {
		s += p.l
	}
	return s / float64(len(pts))
}

// medianX is the nearest-rank median throughput of pts.
func medianX(pts []loadPoint) float64 {
	xs := make([]float64, len(pts))
	for i, p := range pts {
		xs[i] = p.x
	}
	return stats.Median(xs)
}

// littleKnee returns N* = X* · R0 (see above), or k when R0 is unknown or
// N* falls outside the loads seen.
func littleKnee(pts []loadPoint, k, x float64) float64 {
	sum, n := rtSum(lightPoints(pts, k))
	if n == 0 {
		return k
	}
	knee := x * sum / float64(n) / 1000
	if knee < pts[0].l || knee > pts[len(pts)-1].l {
		return k
	}
	return knee
}

// lightPoints returns the points (sorted by load) R0 is taken from: those
// with L ≤ k/2, else the lightest tenth; of the rise alone when points of
// the rise hold calls. A light quantum of the fall holds calls that
// started at a heavier load and waited in its queue: in a short run of
// long calls, where the load falls within a call or two, they are the
// lightest quanta, and their response time is not the light-load one.
func lightPoints(pts []loadPoint, k float64) []loadPoint {
	rise := slices.DeleteFunc(slices.Clone(pts), func(p loadPoint) bool { return !p.rise || p.n == 0 })
	if len(rise) > 0 {
		pts = rise
	}
	light := pts[:sort.Search(len(pts), func(i int) bool { return pts[i].l > k/2 })]
	if calls(light) == 0 {
		light = pts[:int(math.Ceil(plateauShare*float64(len(pts))))]
	}
	return light
}

// calls counts the successful calls behind pts.
func calls(pts []loadPoint) int {
	n := 0
	for _, p := range pts {
		n += p.n
	}
	return n
}

// flat reports whether the plateau points hi (sorted by load) show a flat
// throughput while the load grew (see above).
func flat(hi []loadPoint) bool {
	lo, up := hi[:len(hi)/2], hi[len(hi)/2:]
	if len(lo) == 0 || meanL(lo) <= 0 || meanX(lo) <= 0 {
		return false
	}
	lr, xr := meanL(up)/meanL(lo), meanX(up)/meanX(lo)
	return lr >= plateauGrowth && xr-1 < plateauElasticity*(lr-1)
}

// rtSum is the response time (ms) summed over the calls of pts (each
// point's mean times its calls), and how many calls they hold.
func rtSum(pts []loadPoint) (sum float64, n int) {
	for _, p := range pts {
		sum += p.rt * float64(p.n)
	}
	return sum, calls(pts)
}
