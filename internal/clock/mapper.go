package clock

import (
	"math"
	"sort"
)

// AssumedMaxDriftPPM is the frequency error assumed for a clock before two
// syncs have measured it: ordinary crystal oscillators stay within ±100 ppm.
const AssumedMaxDriftPPM = 100

// fitWindow is how many of the latest syncs the line fit for extrapolation
// uses (with the doubling schedule and a 5 min interval, about an hour).
const fitWindow = 16

// fitFloorNs is the error assumed for a sync whose round trip was the
// shortest seen (timestamping and scheduling noise).
const fitFloorNs = 2000

// DriftFloorPPM is added to a measured drift's uncertainty to allow for
// wander (temperature) that a constant-drift model does not capture.
const DriftFloorPPM = 0.5

// Mapper maps a tester's local times onto the global timeline from its sync
// records. Between two syncs the offset is interpolated linearly (a constant
// frequency error is a straight line); before the first and after the last
// it is extrapolated with the measured drift. Each estimate comes with an
// error bound: the syncs' own bounds, plus the drift's uncertainty times the
// distance to the nearest sync.
type Mapper struct {
	recs     []Record
	driftUnc float64 // bound on the error of the drift (offset change per local ns)
	fit      line    // offset against local time, fitted over the latest syncs
}

// line is offset = a + b·(local − t0).
type line struct {
	t0   int64
	a, b float64
}

func (l line) at(local int64) float64 { return l.a + l.b*float64(local-l.t0) }

// NewMapper sorts a copy of recs by local time and measures the drift.
func NewMapper(recs []Record) *Mapper {
	r := append([]Record(nil), recs...)
	sort.Slice(r, func(i, j int) bool { return r[i].LocalNs < r[j].LocalNs })
	m := &Mapper{recs: r, driftUnc: AssumedMaxDriftPPM / 1e6}
	m.measureDrift()
	m.fitLine()
	return m
}

// fitLine fits the offset of the latest syncs against local time, for
// extrapolating past the last sync. A sync's offset errs by at most half of
// its round trip's excess over the shortest round trip seen (the queueing
// and jitter it met; a constant asymmetry does not bend the line), so each
// sync is weighted by 1/(excess/2)². The slope has a prior: clocks drift by
// well under AssumedMaxDriftPPM, so with syncs that are few, close together
// or noisy, the slope stays near 0 instead of following the noise (ridge
// regression with σ = AssumedMaxDriftPPM/2).
func (m *Mapper) fitLine() {
	r := m.recs[max(0, len(m.recs)-fitWindow):]
	if len(r) == 0 {
		return
	}
	minRTT := r[0].RTTNs
	for _, x := range r {
		minRTT = min(minRTT, x.RTTNs)
	}
	var sw, st, so float64
	w := make([]float64, len(r))
	for i, x := range r {
		e := float64(x.RTTNs-minRTT)/2 + fitFloorNs
		w[i] = 1 / (e * e)
		sw += w[i]
		st += w[i] * float64(x.LocalNs-r[0].LocalNs)
		so += w[i] * float64(x.OffsetNs)
	}
	t0 := r[0].LocalNs + int64(st/sw)
	a := so / sw
	var stt, sto float64
	for i, x := range r {
		dt := float64(x.LocalNs - t0)
		stt += w[i] * dt * dt
		sto += w[i] * dt * (float64(x.OffsetNs) - a)
	}
	sigma := AssumedMaxDriftPPM / 2 / 1e6
	m.fit = line{t0: t0, a: a, b: sto / (stt + 1/(sigma*sigma))}
}

// measureDrift bounds the drift: the slope of the offset between the last
// sync and the earlier sync that bounds it most tightly, whose error is at
// most (bound_i + bound_last) / Δt.
func (m *Mapper) measureDrift() {
	n := len(m.recs)
	if n < 2 {
		return
	}
	last := m.recs[n-1]
	best := math.Inf(1)
	for _, r := range m.recs[:n-1] {
		dt := float64(last.LocalNs - r.LocalNs)
		if dt <= 0 {
			continue
		}
		best = min(best, float64(last.BoundNs+r.BoundNs)/dt)
	}
	if !math.IsInf(best, 1) {
		m.driftUnc = min(best, AssumedMaxDriftPPM/1e6) + DriftFloorPPM/1e6
	}
}

// Empty reports whether there is no record to map with.
func (m *Mapper) Empty() bool { return len(m.recs) == 0 }

// Records returns the sync records, sorted by local time.
func (m *Mapper) Records() []Record { return m.recs }

// DriftPPM returns the measured frequency error (the fitted slope) and the
// bound on its error, in parts per million (the bound is
// AssumedMaxDriftPPM before two syncs).
func (m *Mapper) DriftPPM() (drift, uncertainty float64) {
	return m.fit.b * 1e6, m.driftUnc * 1e6
}

// Global maps a local time onto the global timeline.
func (m *Mapper) Global(local int64) int64 { return local + m.Offset(local) }

// Offset returns the offset to add to local to get global time.
func (m *Mapper) Offset(local int64) int64 {
	off, _ := m.Estimate(local)
	return off
}

// Estimate returns the offset to add to local and the bound on its error.
func (m *Mapper) Estimate(local int64) (offset, bound int64) {
	r := m.recs
	switch {
	case len(r) == 0:
		return 0, math.MaxInt64
	case local < r[0].LocalNs:
		return m.extrapolate(r[0], local)
	case local > r[len(r)-1].LocalNs:
		return m.extrapolate(r[len(r)-1], local)
	case local == r[len(r)-1].LocalNs:
		return r[len(r)-1].OffsetNs, r[len(r)-1].BoundNs
	}
	i := sort.Search(len(r), func(i int) bool { return r[i].LocalNs > local }) // r[i-1] <= local < r[i]
	a, b := r[i-1], r[i]
	f := float64(local-a.LocalNs) / float64(b.LocalNs-a.LocalNs)
	offset = a.OffsetNs + int64(math.Round(f*float64(b.OffsetNs-a.OffsetNs)))
	// Both ends err within their bounds and the line between them errs
	// within the same mix of the two, plus wander since the nearer sync.
	wander := DriftFloorPPM / 1e6 * float64(min(local-a.LocalNs, b.LocalNs-local))
	bound = int64(math.Ceil((1-f)*float64(a.BoundNs) + f*float64(b.BoundNs) + wander))
	return offset, bound
}

// extrapolate follows the fitted line beyond the syncs; the bound is the
// nearest sync's, plus how far the line passes from that sync, plus the
// drift uncertainty over the distance.
func (m *Mapper) extrapolate(r Record, local int64) (offset, bound int64) {
	dt := float64(local - r.LocalNs)
	off := m.fit.at(local)
	miss := math.Abs(m.fit.at(r.LocalNs) - float64(r.OffsetNs))
	bound = r.BoundNs + int64(math.Ceil(miss+m.driftUnc*math.Abs(dt)))
	return int64(math.Round(off)), bound
}
