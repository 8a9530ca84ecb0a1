package sensor

import (
	"slices"
	"testing"
)

// Two sites, each with one promoted sensor: a pair across sites that no
// sensor measures is estimated along local → global → local: the
// bottleneck bandwidth and the summed latency, marked estimated and with
// the sensors it goes through.
func TestEstimateAlongTheHierarchy(t *testing.T) {
	peers := []Peer{
		{Name: "a1", Site: "A", Groups: []string{GroupLocal}},
		{Name: "a2", Site: "A", Groups: []string{GroupLocal, GroupGlobal}},
		{Name: "b1", Site: "B", Groups: []string{GroupLocal}},
		{Name: "b2", Site: "B", Groups: []string{GroupLocal, GroupGlobal}},
	}
	m := Measured{}
	m.Put("a1", "a2", Link{BandwidthBps: 50e6, LatencyMs: 1})
	m.Put("a2", "b2", Link{BandwidthBps: 10e6, LatencyMs: 20})
	m.Put("b2", "b1", Link{BandwidthBps: 25e6, LatencyMs: 2})
	got, ok := Estimate(m, peers, "a1", "b1")
	if !ok || !got.Estimated || got.BandwidthBps != 10e6 || got.LatencyMs != 23 || !slices.Equal(got.Via, []string{"a2", "b2"}) {
		t.Fatalf("a1 → b1 = %+v, %v; want 10 Mbit/s, 23 ms, estimated via a2, b2", got, ok)
	}
	// a global sensor's own hop is left out
	if got, ok := Estimate(m, peers, "a2", "b1"); !ok || got.LatencyMs != 22 || !slices.Equal(got.Via, []string{"b2"}) {
		t.Errorf("a2 → b1 = %+v, %v; want 22 ms via b2", got, ok)
	}
	// a measured pair is not estimated; the other direction stands in, marked estimated
	if got, ok := Estimate(m, peers, "a2", "b2"); !ok || got.Estimated || got.BandwidthBps != 10e6 {
		t.Errorf("a2 → b2 = %+v, %v; want it as measured", got, ok)
	}
	if got, ok := Estimate(m, peers, "b2", "a2"); !ok || !got.Estimated || got.BandwidthBps != 10e6 || len(got.Via) != 0 {
		t.Errorf("b2 → a2 = %+v, %v; want the measured a2 → b2, marked estimated", got, ok)
	}
	// no measured path
	if _, ok := Estimate(Measured{}, peers, "a1", "b1"); ok {
		t.Error("an estimate with nothing measured")
	}
}

// "local" groups are per site: sensors of two sites in "local" only do
// not test each other; their global members do.
func TestEligibleLocalIsPerSite(t *testing.T) {
	self := Peer{Name: "a1", Site: "A", Groups: []string{GroupLocal, GroupGlobal}, Version: "1"}
	all := []Peer{self,
		{Name: "a2", Site: "A", Groups: []string{GroupLocal}, Version: "1"},
		{Name: "b1", Site: "B", Groups: []string{GroupLocal}, Version: "1"},
		{Name: "b2", Site: "B", Groups: []string{GroupLocal, GroupGlobal}, Version: "1"},
	}
	var names []string
	for _, p := range Eligible(self, all) {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"a2", "b2"}) {
		t.Errorf("eligible %v, want a2 (local, same site) and b2 (global)", names)
	}
}
