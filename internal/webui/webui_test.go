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
