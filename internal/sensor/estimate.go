package sensor

import (
	"math"
	"time"
)

// Link is what is known of one direction between two sensors.
type Link struct {
	BandwidthBps float64
	LatencyMs    float64
	At           time.Time // when it was measured (an estimate: its oldest hop)
	Estimated    bool      // not measured directly: estimated along the hierarchy
	Via          []string  // the sensors the estimate goes through
}

// Measured holds the latest direct measurement of each pair, by source
// then destination.
type Measured map[string]map[string]Link

// Put records a direct measurement of src → dst.
func (m Measured) Put(src, dst string, l Link) {
	if m[src] == nil {
		m[src] = map[string]Link{}
	}
	m[src][dst] = l
}

// direct is src → dst measured directly, or, failing that, dst → src
// marked estimated (a path's bandwidth and latency taken as symmetric when
// only the other direction was measured).
func (m Measured) direct(src, dst string) (Link, bool) {
	if l, ok := m[src][dst]; ok && l.BandwidthBps > 0 {
		return l, true
	}
	l, ok := m[dst][src]
	l.Estimated = true
	return l, ok && l.BandwidthBps > 0
}

// Estimate returns src → dst: measured directly if it was (or only the
// other way: then marked estimated), else along the
// hierarchy, src → a global sensor of its site → a global sensor of dst's
// site → dst (a hop left out where src or dst is that sensor itself):
// the bottleneck of the hops' bandwidths and the sum of their latencies,
// through the pair of global sensors that gives the most bandwidth. false
// when no such path is measured.
func Estimate(m Measured, peers []Peer, src, dst string) (Link, bool) {
	return newHierarchy(peers).estimate(m, src, dst)
}

// path is the estimate along the sensors named, consecutive duplicates
// dropped; false when a hop is not measured. Its latency is 0 (not
// known) when a hop's is not.
func (m Measured) path(names []string) (Link, bool) {
	hops := names[:1]
	for _, n := range names[1:] {
		if n != hops[len(hops)-1] {
			hops = append(hops, n)
		}
	}
	l := Link{BandwidthBps: math.Inf(1), Estimated: true, Via: hops[1 : len(hops)-1]}
	latencyKnown := true // a hop without a latency leaves the sum unknown (0), not short
	for i := 1; i < len(hops); i++ {
		h, ok := m.direct(hops[i-1], hops[i])
		if !ok {
			return Link{}, false
		}
		l.BandwidthBps = min(l.BandwidthBps, h.BandwidthBps)
		l.LatencyMs += h.LatencyMs
		latencyKnown = latencyKnown && known(h.LatencyMs)
		if l.At.IsZero() || h.At.Before(l.At) {
			l.At = h.At
		}
	}
	if !latencyKnown || !known(l.LatencyMs) { // or the sum overflowed
		l.LatencyMs = 0
	}
	return l, len(hops) > 1
}
