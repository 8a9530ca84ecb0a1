package clock

import (
	"math/rand/v2"
	"testing"
	"time"
)

// path simulates probes of a clock that is off by off0 at local time 0
// and drifts by driftPPM, over a path whose delays each way are drawn
// from 0..maxDelay (any asymmetry), to a server that holds each request
// up to 50 µs.
type path struct {
	rng            *rand.Rand
	off0, maxDelay float64
	driftPPM       float64
}

// trueOffset is global − local at local time t.
func (p path) trueOffset(t int64) float64 { return p.off0 - p.driftPPM/1e6*float64(t) }

// probe makes a probe sent at local time t1.
func (p path) probe(t1 int64) Probe {
	up, down := p.rng.Float64()*p.maxDelay, p.rng.Float64()*p.maxDelay
	hold := p.rng.Float64() * 50e3
	// The delays are global spans; local time runs at 1 + drift against
	// global time, so the exchange's local span is theirs·(1 + drift).
	rate := 1 + p.driftPPM/1e6
	t2 := float64(t1) + p.trueOffset(t1) + up
	t3 := t2 + hold
	t4 := t1 + int64((up+hold+down)*rate)
	return Probe{T1: t1, T2: int64(t2), T3: int64(t3), T4: t4}
}

// burst makes n probes 1 ms apart from local time t.
func (p path) burst(t int64, n int) []Probe {
	ps := make([]Probe, n)
	for i := range ps {
		ps[i] = p.probe(t + int64(i)*int64(time.Millisecond))
	}
	return ps
}

// TestHonestSyncsAgree: over paths up to 20 ms each way, with any
// asymmetry, clocks off by up to an hour and drifting by up to
// ±MaxDriftPPM, no probe of a burst disagrees and every sync record
// agrees with the ones before it.
func TestHonestSyncsAgree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		p := path{rng: rng, off0: (2*rng.Float64() - 1) * float64(time.Hour), maxDelay: rng.Float64() * 20e6,
			driftPPM: (2*rng.Float64() - 1) * (MaxDriftPPM - 0.01)}
		var c Consistency
		at := int64(0)
		for i := range 12 {
			ps := p.burst(at, 16)
			if d := Disagreeing(ps); d != 0 {
				t.Fatalf("path %+v, burst %d: %d probes disagree", p, i, d)
			}
			r, _ := Best(ps)
			if ok, lo, hi := c.Check(r); !ok {
				t.Fatalf("path %+v: sync %d %+v disagrees (earlier syncs allow %.0f..%.0f)", p, i, r, lo, hi)
			}
			at += int64(time.Second) << i // the resync schedule: 1 s, 2 s, 4 s, ...
		}
	}
}

// TestShiftedProbesDisagree: a path that adds 5 s to T2 and T3 of some
// replies makes the burst's probes disagree, whichever one is kept.
func TestShiftedProbesDisagree(t *testing.T) {
	t.Parallel()
	p := path{rng: rand.New(rand.NewPCG(3, 4)), off0: 1e9, maxDelay: 1e6}
	ps := p.burst(0, 16)
	for i := range ps {
		if i%4 == 0 {
			ps[i].T2 += 5e9
			ps[i].T3 += 5e9
		}
	}
	if d := Disagreeing(ps); d != 4 && d != 12 {
		t.Errorf("%d probes disagree with the one kept; want the 4 shifted or the 12 others", d)
	}
}

// TestShiftedSyncIsCaught: a sync 5 s off disagrees with the honest ones
// before it, is left out, and the next honest one still agrees; a shift
// just past what the bounds and the drift allow is caught too, one just
// within is not.
func TestShiftedSyncIsCaught(t *testing.T) {
	t.Parallel()
	const bound = 50_000
	rec := func(at time.Duration, off int64) Record {
		return Record{LocalNs: int64(at), OffsetNs: off, RTTNs: 2 * bound, BoundNs: bound}
	}
	var c Consistency
	for _, r := range []Record{rec(0, 0), rec(2*time.Second, 0)} {
		if ok, _, _ := c.Check(r); !ok {
			t.Fatalf("honest %+v disagrees", r)
		}
	}
	ok, lo, hi := c.Check(rec(4*time.Second, 5e9))
	if ok || lo > 0 || hi < 0 {
		t.Fatalf("5 s shift: agrees %v, range %.0f..%.0f; want caught, with the true offset 0 in range", ok, lo, hi)
	}
	if ok, _, _ := c.Check(rec(8*time.Second, 0)); !ok {
		t.Fatal("the honest sync after the shifted one disagrees")
	}
	// After the sync at 8 s (bound 50 µs), one at 10 s may be off by its
	// own bound, the earlier one's, the drift over 2 s and over each
	// one's round trip, and their floors.
	room := 2*bound + maxDrift*(2e9+2*2*bound) + 2*stampFloorNs
	for _, tt := range []struct {
		off float64
		ok  bool
	}{{room - 10, true}, {room + 10, false}, {-room - 10, false}} {
		d := c // each case from the same state
		if ok, _, _ := d.Check(rec(10*time.Second, int64(tt.off))); ok != tt.ok {
			t.Errorf("offset %.0f ns at 10 s: agrees %v, want %v", tt.off, ok, tt.ok)
		}
	}
}
