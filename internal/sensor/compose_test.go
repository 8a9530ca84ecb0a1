package sensor

import (
	"slices"
	"testing"
)

// The bottleneck's error covers every hop that could bind instead: the
// path's bandwidth lies between the least lower end and the least upper
// end of the hops' intervals; latency errors add up.
func TestComposeErrors(t *testing.T) {
	for _, c := range []struct {
		name           string
		hops           []Link
		bw, bwErr      float64
		lat, latErr    float64
		basis          string
		wantErrorKnown bool
	}{
		{"a hop well above the bottleneck adds nothing", []Link{
			{BandwidthBps: 100e6, BandwidthErr: 50e6, LatencyMs: 1, LatencyErr: 0.1, ErrorKnown: true},
			{BandwidthBps: 10e6, BandwidthErr: 1e6, LatencyMs: 20, LatencyErr: 2, ErrorKnown: true},
		}, 10e6, 1e6, 21, 2.1, BasisHierarchy, true},
		{"an overlapping hop could bind: its error counts", []Link{
			{BandwidthBps: 12e6, BandwidthErr: 5e6, LatencyMs: 1, LatencyErr: 0.5, ErrorKnown: true},
			{BandwidthBps: 10e6, BandwidthErr: 1e6, LatencyMs: 2, LatencyErr: 0.5, ErrorKnown: true},
		}, 10e6, 3e6, 3, 1, BasisHierarchy, true}, // 12 − 5 = 7: 3 below the bottleneck
		{"a hop known only the other way: error unknown", []Link{
			{BandwidthBps: 12.99e9, LatencyMs: 1, Basis: BasisReverse},
			{BandwidthBps: 10e9, BandwidthErr: 1e6, LatencyMs: 2, LatencyErr: 0.5, ErrorKnown: true},
		}, 10e9, 0, 3, 0, BasisReverse, false},
		{"a hop without a latency", []Link{
			{BandwidthBps: 5e6, BandwidthErr: 1e6, LatencyMs: 1, LatencyErr: 0.5, ErrorKnown: true},
			{BandwidthBps: 9e6, BandwidthErr: 1e6, ErrorKnown: true},
		}, 5e6, 1e6, 0, 0, BasisHierarchy, true},
	} {
		l := Compose(c.hops)
		if l.BandwidthBps != c.bw || l.BandwidthErr != c.bwErr || l.LatencyMs != c.lat || !near(l.LatencyErr, c.latErr) ||
			l.Basis != c.basis || l.ErrorKnown != c.wantErrorKnown || l.Usable() != (c.basis != BasisReverse) {
			t.Errorf("%s: %+v; want %g ± %g bit/s, %g ± %g ms, basis %s, error known %v",
				c.name, l, c.bw, c.bwErr, c.lat, c.latErr, c.basis, c.wantErrorKnown)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// Only the other direction of a path measured: the figure is labelled
// reverse (not usable), and a path along the hierarchy whose hops are all
// measured their own way is preferred to it; a path with a hop known only
// the other way is not used while another pair of global sensors gives
// one measured throughout.
func TestEstimateNeverUsesTheReverseDirection(t *testing.T) {
	peers := []Peer{
		{Name: "a1", Site: "A", Groups: []string{GroupLocal}},
		{Name: "ga", Site: "A", Groups: []string{GroupLocal, GroupGlobal}},
		{Name: "ga2", Site: "A", Groups: []string{GroupLocal, GroupGlobal}},
		{Name: "b1", Site: "B", Groups: []string{GroupLocal}},
		{Name: "gb", Site: "B", Groups: []string{GroupLocal, GroupGlobal}},
	}
	m := Measured{}
	m.Put("a1", "b1", Link{BandwidthBps: 12.99e9, LatencyMs: 0.1}) // the fast direction; b1 → a1 is 20 Mbit/s, not measured
	if l, ok := Estimate(m, peers, "b1", "a1"); !ok || l.Usable() || l.Basis != BasisReverse || l.ErrorKnown {
		t.Errorf("b1 → a1 = %+v, %v; want the reverse figure labelled, not usable", l, ok)
	}
	m.Put("b1", "gb", Link{BandwidthBps: 20e6, LatencyMs: 5})
	m.Put("gb", "ga2", Link{BandwidthBps: 1e9, LatencyMs: 10})
	m.Put("ga", "a1", Link{BandwidthBps: 1e9, LatencyMs: 1}) // gb → ga is known only the other way
	m.Put("ga", "gb", Link{BandwidthBps: 5e9, LatencyMs: 10})
	m.Put("ga2", "a1", Link{BandwidthBps: 1e9, LatencyMs: 1})
	l, ok := Estimate(m, peers, "b1", "a1")
	if !ok || !l.Usable() || l.Basis != BasisHierarchy || l.BandwidthBps != 20e6 || l.LatencyMs != 16 || !slices.Equal(l.Via, []string{"gb", "ga2"}) {
		t.Errorf("b1 → a1 = %+v, %v; want 20 Mbit/s, 16 ms along gb, ga2 (measured each way), not 12.99 Gbit/s", l, ok)
	}
	if l, ok := Estimate(m, peers, "a1", "b1"); !ok || l.Basis != BasisMeasured || l.Estimated {
		t.Errorf("a1 → b1 = %+v, %v; want measured", l, ok)
	}
}
