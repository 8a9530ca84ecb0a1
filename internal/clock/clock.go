// Package clock gives testers a local clock read from the monotonic clock,
// estimates its offset from global time with NTP-style probes, and maps
// local times onto the global timeline from the sync records.
package clock

import "time"

// Local is a tester's clock in Unix-like nanoseconds. It advances with the
// monotonic clock, so a wall-clock step during a run does not bend it. A
// test-only offset and drift can be injected to play a badly set clock.
type Local struct {
	base     int64     // wall clock at creation, ns
	mono     time.Time // monotonic reading at creation
	offsetNs int64     // injected offset
	driftPPM float64   // injected frequency error
}

// NewLocal returns a clock that reads wall time plus offsetNs, running fast
// by driftPPM parts per million (both 0 outside of tests).
func NewLocal(offsetNs int64, driftPPM float64) *Local {
	now := time.Now()
	return &Local{base: now.UnixNano(), mono: now, offsetNs: offsetNs, driftPPM: driftPPM}
}

// Now returns the local time in ns.
func (c *Local) Now() int64 {
	el := int64(time.Since(c.mono))
	return c.base + c.offsetNs + el + int64(float64(el)*c.driftPPM/1e6)
}

// AtWall converts a wall-clock reading (e.g. a kernel receive timestamp,
// Unix ns) into this clock's local time.
func (c *Local) AtWall(wallNs int64) int64 {
	el := wallNs - c.base
	return c.base + c.offsetNs + el + int64(float64(el)*c.driftPPM/1e6)
}

// Reader is what a sync client needs of a local clock.
type Reader interface {
	Now() int64                // local time, ns
	AtWall(wallNs int64) int64 // local time at a wall-clock instant
}

var _ Reader = (*Local)(nil)

// Probe is one request/response exchange with a time server: T1 local send,
// T2 server receive, T3 server send, T4 local receive.
type Probe struct{ T1, T2, T3, T4 int64 }

// Offset is the estimated global − local offset (NTP's θ).
func (p Probe) Offset() int64 { return ((p.T2 - p.T1) + (p.T3 - p.T4)) / 2 }

// RTT is the round trip minus the server's own time (NTP's δ).
func (p Probe) RTT() int64 { return (p.T4 - p.T1) - (p.T3 - p.T2) }

// Record is the outcome of one sync: at local time LocalNs, global time was
// local + OffsetNs within ± BoundNs.
type Record struct {
	LocalNs  int64
	OffsetNs int64
	RTTNs    int64
	BoundNs  int64
}

// Best picks the probe with the smallest round trip (the NTP clock-filter
// idea: the shortest exchange suffers least from queueing) and turns it into
// a Record. ok is false when probes is empty.
func Best(probes []Probe) (r Record, ok bool) {
	if len(probes) == 0 {
		return r, false
	}
	b := bestProbe(probes)
	rtt := max(b.RTT(), 0)
	return Record{LocalNs: b.T4, OffsetNs: b.Offset(), RTTNs: rtt, BoundNs: rtt / 2}, true
}

// bestProbe returns the first probe with the smallest round trip; probes
// is not empty.
func bestProbe(probes []Probe) Probe {
	b := probes[0]
	for _, p := range probes[1:] {
		if p.RTT() < b.RTT() {
			b = p
		}
	}
	return b
}
