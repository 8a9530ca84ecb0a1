package clock

import (
	"math"
	"testing"
	"time"
)

func TestProbeOffsetAndRTT(t *testing.T) {
	t.Parallel()
	// Local clock is 1000 behind global; one way takes 10 each way; the server holds 5.
	p := Probe{T1: 0, T2: 1010, T3: 1015, T4: 25}
	if got := p.Offset(); got != 1000 {
		t.Errorf("offset = %d, want 1000", got)
	}
	if got := p.RTT(); got != 20 {
		t.Errorf("rtt = %d, want 20", got)
	}
}

func TestBestPicksShortestRoundTrip(t *testing.T) {
	t.Parallel()
	probes := []Probe{
		{T1: 0, T2: 1050, T3: 1050, T4: 60},    // slow, skewed by queueing
		{T1: 100, T2: 1105, T3: 1105, T4: 110}, // fastest: offset 1000
		{T1: 200, T2: 1230, T3: 1230, T4: 240},
	}
	r, ok := Best(probes)
	if !ok || r.OffsetNs != 1000 || r.RTTNs != 10 || r.BoundNs != 5 || r.LocalNs != 110 {
		t.Fatalf("Best = %+v, %v", r, ok)
	}
	if _, ok := Best(nil); ok {
		t.Error("Best(nil) ok")
	}
}

func TestMapperInterpolates(t *testing.T) {
	t.Parallel()
	m := NewMapper([]Record{{LocalNs: 2000, OffsetNs: 300}, {LocalNs: 1000, OffsetNs: 100}})
	tests := []struct{ local, global int64 }{
		{0, 200},     // before the first sync: the fitted line (a drift of 0.2 is past belief: slope ~0)
		{1000, 1100}, // at a sync
		{1500, 1700}, // halfway: offset 200
		{5000, 5200}, // after the last: likewise
	}
	for _, tt := range tests {
		if got := m.Global(tt.local); got != tt.global {
			t.Errorf("Global(%d) = %d, want %d", tt.local, got, tt.global)
		}
	}
	if got := NewMapper(nil).Global(7); got != 7 {
		t.Errorf("empty mapper moved time: %d", got)
	}
}

func TestLocalInjectedOffset(t *testing.T) {
	t.Parallel()
	c := NewLocal(int64(time.Hour), 0)
	d := c.Now() - time.Now().UnixNano()
	if d < int64(time.Hour-time.Second) || d > int64(time.Hour+time.Second) {
		t.Fatalf("injected offset not applied: %v", time.Duration(d))
	}
}

func TestMapperDriftAndBounds(t *testing.T) {
	t.Parallel()
	const s = int64(time.Second)
	// A clock 1 h behind that runs 20 ppm slow: the offset grows 20 µs a second.
	recs := []Record{
		{LocalNs: 0, OffsetNs: int64(time.Hour), BoundNs: 50_000},
		{LocalNs: 10 * s, OffsetNs: int64(time.Hour) + 200_000, BoundNs: 10_000},
		{LocalNs: 100 * s, OffsetNs: int64(time.Hour) + 2_000_000, BoundNs: 30_000},
	}
	m := NewMapper(recs)
	drift, unc := m.DriftPPM()
	if math.Abs(drift-20) > 1e-3 {
		t.Errorf("drift %v ppm, want 20", drift)
	}
	// The tightest pair is (10 s, 100 s): (10 + 30 µs) / 90 s = 0.444 ppm, plus the floor.
	if want := 40.0/90 + DriftFloorPPM; math.Abs(unc-want) > 1e-9 {
		t.Errorf("drift uncertainty %v ppm, want %v", unc, want)
	}
	tests := []struct {
		local, offset, bound int64
	}{
		{10 * s, int64(time.Hour) + 200_000, 10_000},             // at a sync: its own bound
		{55 * s, int64(time.Hour) + 1_100_000, 20_000 + 22_500},  // halfway between syncs: mixed bounds + wander
		{200 * s, int64(time.Hour) + 4_000_000, 30_000 + 94_445}, // 100 s past the last sync: + 0.944 ppm x 100 s
	}
	for _, tt := range tests {
		off, b := m.Estimate(tt.local)
		if math.Abs(float64(off-tt.offset)) > 1 || b != tt.bound {
			t.Errorf("Estimate(%d s) = %d, %d; want %d, %d", tt.local/s, off, b, tt.offset, tt.bound)
		}
	}
	// One sync only: the assumed worst drift makes the bound grow 100 µs a second.
	one := NewMapper(recs[:1])
	if _, b := one.Estimate(10 * s); b != 50_000+1_000_000 {
		t.Errorf("single-sync bound after 10 s = %d, want %d", b, 50_000+1_000_000)
	}
}

func TestMapperFitIgnoresJitterNoise(t *testing.T) {
	t.Parallel()
	const ms = int64(time.Millisecond)
	// Two syncs 2 s apart over a jittery path: the second met 2 ms more
	// queueing, and its offset errs by 1 ms. The raw slope would be 500 ppm;
	// the fit keeps the drift near 0, so 4 s later the estimate errs by
	// about the sync noise, not by 2 ms more.
	m := NewMapper([]Record{
		{LocalNs: 0, OffsetNs: 0, RTTNs: 40 * ms, BoundNs: 20 * ms},
		{LocalNs: 2000 * ms, OffsetNs: 1 * ms, RTTNs: 42 * ms, BoundNs: 21 * ms},
	})
	if d, _ := m.DriftPPM(); math.Abs(d) > 5 {
		t.Errorf("fitted drift %v ppm follows the noise", d)
	}
	off, bound := m.Estimate(6000 * ms)
	if math.Abs(float64(off)) > float64(ms) {
		t.Errorf("offset 4 s after the last sync = %v, want within 1 ms of 0", time.Duration(off))
	}
	if bound < 21*ms {
		t.Errorf("bound %v is below the sync's own", time.Duration(bound))
	}
}
