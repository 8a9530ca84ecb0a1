package clock

import "math"

// MaxDriftPPM is the largest frequency error between a tester's clock and
// global time that the consistency checks allow: a crystal's worst case
// (AssumedMaxDriftPPM) plus wander (DriftFloorPPM), the most the Mapper's
// error bounds allow for.
const MaxDriftPPM = AssumedMaxDriftPPM + DriftFloorPPM

// maxDrift is MaxDriftPPM as offset change per local ns.
const maxDrift = MaxDriftPPM / 1e6

// stampFloorNs is added to every interval of the checks: the rounding of
// the timestamps and of a clock's conversions (a few ns), with room.
const stampFloorNs = 1000

// The checks below rest on one fact: whatever the path's delays and
// their asymmetry, the true offset at a probe lies within
// [T3 − T4, T2 − T1] = θ ± δ/2, give or take the drift over the exchange,
// as long as the four timestamps are what they claim. Honest probes
// therefore always agree: each interval holds the true offset, which
// moves by at most maxDrift per ns between them. Probes or syncs that do
// not agree prove that some timestamp was not what it claims: a reply
// forged or altered on the path, or a clock stepped under the tester.

// halfWidth is how far the true offset may lie from p's offset.
func (p Probe) halfWidth() float64 {
	return float64(max(p.RTT(), 0))/2 + maxDrift*float64(max(p.T4-p.T1, 0)) + stampFloorNs
}

// Disagreeing returns how many probes of a burst disagree with the one
// Best keeps (the one with the smallest round trip): their offset
// intervals, widened by MaxDriftPPM over the time between them, do not
// overlap. Honest probes never do.
func Disagreeing(probes []Probe) int {
	if len(probes) == 0 {
		return 0
	}
	k := bestProbe(probes)
	n := 0
	for _, p := range probes {
		gap := math.Abs(float64(p.Offset() - k.Offset()))
		if gap > p.halfWidth()+k.halfWidth()+maxDrift*math.Abs(float64(p.T4-k.T4)) {
			n++
		}
	}
	return n
}

// Consistency checks a tester's sync records against each other as they
// come: the offsets they allow (offset ± bound, widened by the drift over
// the round trip) must have room for one clock that drifts by at most
// MaxDriftPPM. It keeps the range of offsets the records so far allow at
// the latest one's time, so each check costs O(1). The zero value is
// ready for the first record.
type Consistency struct {
	set    bool
	local  int64   // local time of the range
	lo, hi float64 // the offsets the records so far allow then, ns
}

// Check takes the next record. ok is false when it disagrees with those
// before it; lo..hi is then the range of offsets they allow at its local
// time, and the record is left out of later checks.
func (c *Consistency) Check(r Record) (ok bool, lo, hi float64) {
	w := float64(max(r.BoundNs, 0)) + maxDrift*float64(max(r.RTTNs, 0)) + stampFloorNs
	rlo, rhi := float64(r.OffsetNs)-w, float64(r.OffsetNs)+w
	if !c.set {
		*c = Consistency{set: true, local: r.LocalNs, lo: rlo, hi: rhi}
		return true, rlo, rhi
	}
	// Between records the offset moves by at most maxDrift per ns, either
	// way in time: a record out of order is checked as soundly.
	slack := maxDrift * math.Abs(float64(r.LocalNs)-float64(c.local))
	lo, hi = c.lo-slack, c.hi+slack
	if rhi < lo || rlo > hi {
		return false, lo, hi
	}
	c.local, c.lo, c.hi = r.LocalNs, max(lo, rlo), min(hi, rhi)
	return true, lo, hi
}
