package sensor

import (
	"encoding/json"
	"strings"
	"testing"
)

// The map shows a pair known only from the other direction labelled as
// such: basis reverse in --json, "r" in the table (its legend saying the
// error is unknown), grey in the heat map; the measured pair as measured.
func TestMapLabelsTheReverseDirection(t *testing.T) {
	peers := []Peer{{Name: "a", Site: "A"}, {Name: "b", Site: "A"}}
	m := Measured{}
	m.Put("a", "b", Link{BandwidthBps: 12.99e9, LatencyMs: 0.1})
	rows := Map(m, peers)
	if len(rows) != 2 || rows[0].Basis != BasisMeasured || rows[1].Basis != BasisReverse || rows[1].Usable() {
		t.Fatalf("rows %+v; want a → b measured, b → a reverse", rows)
	}
	js, err := json.Marshal(rows[1])
	if err != nil || !strings.Contains(string(js), `"basis":"reverse"`) {
		t.Errorf("json %s, %v", js, err)
	}
	var tb strings.Builder
	if err := WriteTable(&tb, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tb.String(), "12.99G/100µsr") || !strings.Contains(tb.String(), "r reverse (error unknown)") {
		t.Errorf("table:\n%s", tb.String())
	}
	if svg := string(HeatMapSVG(rows)); !strings.Contains(svg, "12.99G r<") || !strings.Contains(svg, `fill="#888"`) {
		t.Errorf("heat map without the reverse cell labelled:\n%s", svg)
	}
}
