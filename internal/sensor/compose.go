package sensor

import "math"

// Compose is the link along consecutive hops (at least one), estimated:
//
//   - bandwidth: the bottleneck, the least of the hops' bandwidths. Its
//     error is honest about which hop binds: each hop's true bandwidth is
//     within its error of its figure, so the path's lies between the least
//     of the hops' lower ends and the least of their upper ends, and the
//     error is the larger distance from the bottleneck to either end (at
//     most the largest error of the hops whose interval overlaps the
//     bottleneck's: any of those could bind instead; a hop well above it
//     adds nothing);
//   - latency: the sum of the hops' latencies, its error the sum of their
//     errors; not known (0) when a hop's latency is not;
//   - as old as its oldest hop; its errors known when every hop's is;
//     basis hierarchy, or reverse when a hop is (its error is then
//     unknown).
func Compose(hops []Link) Link {
	l := Link{BandwidthBps: math.Inf(1), Estimated: true, Basis: BasisHierarchy, ErrorKnown: true}
	lo, hi := math.Inf(1), math.Inf(1)
	latencyKnown := true // a hop without a latency leaves the sum unknown (0), not short
	for _, h := range hops {
		l.BandwidthBps = min(l.BandwidthBps, h.BandwidthBps)
		lo, hi = min(lo, h.BandwidthBps-h.BandwidthErr), min(hi, h.BandwidthBps+h.BandwidthErr)
		l.LatencyMs += h.LatencyMs
		l.LatencyErr += h.LatencyErr
		latencyKnown = latencyKnown && known(h.LatencyMs)
		if l.At.IsZero() || h.At.Before(l.At) {
			l.At = h.At
		}
		l.ErrorKnown = l.ErrorKnown && h.ErrorKnown && h.Usable()
		if !h.Usable() {
			l.Basis = BasisReverse
		}
	}
	l.BandwidthErr = max(l.BandwidthBps-lo, hi-l.BandwidthBps, 0)
	if !latencyKnown || !known(l.LatencyMs) { // or the sum overflowed
		l.LatencyMs, l.LatencyErr = 0, 0
	}
	if !l.ErrorKnown {
		l.BandwidthErr, l.LatencyErr = 0, 0
	}
	return l
}
