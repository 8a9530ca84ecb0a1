package sensor

import (
	"time"
)

// The bases of a figure of the map: what it was taken from.
const (
	BasisMeasured  = "measured"  // the pair's own results (or forecast)
	BasisHierarchy = "hierarchy" // composed along the hierarchy's global sensors, every hop measured this way
	BasisReverse   = "reverse"   // taken from the other direction: its error for this direction is unknown, never used
)

// Link is what is known of one direction between two sensors.
type Link struct {
	BandwidthBps float64
	LatencyMs    float64
	At           time.Time // when it was measured (an estimate: its oldest hop)
	Estimated    bool      // not measured directly: estimated along the hierarchy, or from the other direction
	Via          []string  // the sensors the estimate goes through
	Basis        string    // BasisMeasured, BasisHierarchy or BasisReverse ("" is measured)
	BandwidthErr float64   // the bandwidth's expected error (bit/s), when ErrorKnown
	LatencyErr   float64   // the latency's expected error (ms), when ErrorKnown
	ErrorKnown   bool      // the errors are known: forecasts, or composed of hops that all have one
}

// Usable says whether the link's figures may be used for this direction:
// not when taken from the other direction (an asymmetric path's other
// direction says nothing of this one: 12.99 Gbit/s one way, 20 Mbit/s the
// other).
func (l Link) Usable() bool { return l.Basis != BasisReverse }

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

// direct is src → dst measured directly.
func (m Measured) direct(src, dst string) (Link, bool) {
	l, ok := m[src][dst]
	l.Basis = BasisMeasured
	return l, ok && l.BandwidthBps > 0
}

// reverse is dst → src's measurement standing for src → dst: marked
// estimated, basis reverse, its error unknown.
func (m Measured) reverse(src, dst string) (Link, bool) {
	l, ok := m.direct(dst, src)
	l.Estimated, l.Basis, l.ErrorKnown, l.BandwidthErr, l.LatencyErr = true, BasisReverse, false, 0, 0
	return l, ok
}

// hop is src → dst measured directly, or with anyWay its other direction
// (basis reverse).
func (m Measured) hop(src, dst string, anyWay bool) (Link, bool) {
	if l, ok := m.direct(src, dst); ok || !anyWay {
		return l, ok
	}
	return m.reverse(src, dst)
}

// Estimate returns src → dst, in this order: measured directly (basis
// measured); else along the hierarchy, src → a global sensor of its
// site → a global sensor of dst's site → dst (a hop left out where src or
// dst is that sensor itself), every hop measured in its own direction
// (basis hierarchy: Compose's figures, through the pair of global sensors
// that gives the most bandwidth); else from the other direction, dst →
// src measured, or the hierarchy with hops known only the other way
// (basis reverse: error unknown, not Usable). false when none is known.
func Estimate(m Measured, peers []Peer, src, dst string) (Link, bool) {
	return newHierarchy(peers).estimate(m, src, dst)
}

// path is the estimate along the sensors named, consecutive duplicates
// dropped, each hop measured its own way (or, with anyWay, the other way:
// the path is then basis reverse); false when a hop is not measured.
func (m Measured) path(names []string, anyWay bool) (Link, bool) {
	hops := names[:1]
	for _, n := range names[1:] {
		if n != hops[len(hops)-1] {
			hops = append(hops, n)
		}
	}
	links := make([]Link, 0, len(hops)-1)
	for i := 1; i < len(hops); i++ {
		h, ok := m.hop(hops[i-1], hops[i], anyWay)
		if !ok {
			return Link{}, false
		}
		links = append(links, h)
	}
	l := Compose(links)
	l.Via = hops[1 : len(hops)-1]
	return l, len(hops) > 1
}
