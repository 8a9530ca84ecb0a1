package webui

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// The embedded uPlot is the release the docs name, and its licence ships
// with it.
func TestAssetsAreEmbedded(t *testing.T) {
	js := UPlotJS()
	if len(js) < 10_000 || !bytes.Contains(js, []byte("uPlot")) {
		t.Fatalf("uPlot script is %d bytes and does not define uPlot", len(js))
	}
	if !bytes.Contains(UPlotCSS(), []byte(".uplot")) {
		t.Fatal("uPlot CSS lacks the .uplot class")
	}
	if !bytes.Contains(UPlotLicense(), []byte("MIT License")) {
		t.Fatal("uPlot licence is not the MIT licence")
	}
}

// The chart script and its style sheet are embedded and define what the
// pages call.
func TestChartsAreEmbedded(t *testing.T) {
	js := ChartsJS()
	for _, want := range []string{"window.diperfCharts", "renderAll", "push", "setScale: true"} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("charts.js lacks %q", want)
		}
	}
	if bytes.Contains(js, []byte("http://")) || bytes.Contains(js, []byte("https://")) {
		t.Error("charts.js names a network address")
	}
	if !bytes.Contains(ChartsCSS(), []byte(".dp-chart")) {
		t.Error("charts.css lacks the .dp-chart class")
	}
}

// A spec's JSON writes gaps as null, stays inside a <script> element
// whatever its labels say, and parses back.
func TestSpecJSON(t *testing.T) {
	s := &ChartSpec{ID: "a", Title: "run </script><script>alert(1)</script>", X: Values{0, 1, 2},
		Series: []Series{{Label: "x", Unit: "ms", Axis: AxisLeft, Values: Values{1.5, math.NaN(), math.Inf(1)}}}}
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("</script")) || bytes.Contains(b, []byte("<")) {
		t.Errorf("JSON can close its script element: %s", b)
	}
	if !bytes.Contains(b, []byte(`"values":[1.5,null,null]`)) {
		t.Errorf("gaps are not null: %s", b)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("JSON does not parse: %v\n%s", err, b)
	}
	if back["title"] != s.Title {
		t.Errorf("title came back as %q", back["title"])
	}
}

// charts.js is inlined in report.html: no text of it may open or close a
// script element there.
func TestChartsJSInlines(t *testing.T) {
	if bytes.Contains(bytes.ToLower(ChartsJS()), []byte("<script")) || bytes.Contains(bytes.ToLower(ChartsJS()), []byte("</script")) {
		t.Error("charts.js contains a script tag")
	}
}
