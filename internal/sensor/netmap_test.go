package sensor

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

// The map lists every ordered pair of live sensors that is measured or
// can be estimated, marks the estimates, and draws as a table and as a
// well-formed SVG heat map.
func TestMapTableAndHeatMap(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0).UTC()
	peers := []Peer{
		{Name: "a1", Site: "A", Groups: []string{GroupLocal}},
		{Name: "a2", Site: "A", Groups: []string{GroupLocal, GroupGlobal}},
		{Name: "b2", Site: "B", Groups: []string{GroupLocal, GroupGlobal}},
		{Name: "gone", Site: "B", Stale: true},
	}
	m := Measured{}
	m.Put("a1", "a2", Link{BandwidthBps: 50e6, LatencyMs: 1, At: t0})
	m.Put("a2", "b2", Link{BandwidthBps: 10e6, LatencyMs: 20, At: t0.Add(time.Minute)})
	rows := Map(m, peers)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want the 6 ordered pairs of 3 live sensors: %+v", len(rows), rows)
	}
	var est Row
	for _, r := range rows {
		if r.Src == "gone" || r.Dst == "gone" {
			t.Errorf("a stale sensor in the map: %+v", r)
		}
		if r.Src == "a1" && r.Dst == "b2" {
			est = r
		}
	}
	if !est.Estimated || est.BandwidthBps != 10e6 || est.LatencyMs != 21 || !est.MeasuredAt.Equal(t0) {
		t.Errorf("a1 → b2 = %+v; want estimated, 10 Mbit/s, 21 ms, as old as its oldest hop", est)
	}
	var tb strings.Builder
	if err := WriteTable(&tb, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tb.String(), "10.0M/21.0ms*") || !strings.Contains(tb.String(), "50.0M/1.0ms") {
		t.Errorf("table:\n%s", tb.String())
	}
	svg := HeatMapSVG(rows)
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Errorf("heat map is not well-formed XML: %v", err)
	}
	if n := strings.Count(string(svg), `fill="url(#est)"`); n != 4 {
		t.Errorf("%d hatched cells, want 4 (a1 ↔ b2 along the hierarchy, a2 → a1 and b2 → a2 from the other direction)", n)
	}
}
