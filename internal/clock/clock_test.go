package clock

import (
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
		{0, 100},     // before the first sync: its offset
		{1000, 1100}, // at a sync
		{1500, 1700}, // halfway: offset 200
		{5000, 5300}, // after the last: its offset
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
