package webui

import (
	"bytes"
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
