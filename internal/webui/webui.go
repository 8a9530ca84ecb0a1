// Package webui holds the browser assets shared by the live dashboard and
// report.html: uPlot, the chart library both draw with (vendored from npm,
// version in UPlotVersion, MIT licence in vendor/uPlot.LICENSE), and the
// pages' own scripts. Everything is embedded in the binary, so that neither
// the dashboard nor the report needs a network.
package webui

import (
	"embed"
	"io/fs"
)

// UPlotVersion is the vendored uPlot release (npm package uplot).
const UPlotVersion = "1.6.32"

//go:embed vendor charts.js charts.css
var vendor embed.FS

// UPlotJS returns uPlot's minified script (an IIFE defining window.uPlot).
func UPlotJS() []byte { return mustRead("vendor/uPlot.iife.min.js") }

// UPlotCSS returns uPlot's style sheet.
func UPlotCSS() []byte { return mustRead("vendor/uPlot.min.css") }

// UPlotLicense returns uPlot's licence text, shipped beside its code.
func UPlotLicense() []byte { return mustRead("vendor/uPlot.LICENSE") }

// ChartsJS returns charts.js, the script both pages build their uPlot
// charts with: window.diperfCharts.build(element, spec) draws a JSON chart
// spec (its format and the chart's push method for live updates are
// documented at the top of the file) and renderAll draws every spec a page
// embeds. Load it after UPlotJS.
func ChartsJS() []byte { return mustRead("charts.js") }

// ChartsCSS returns the style sheet of the charts charts.js builds; load it
// after UPlotCSS.
func ChartsCSS() []byte { return mustRead("charts.css") }

// mustRead reads an embedded file; the names are fixed at build time, so a
// missing one is a programming error.
func mustRead(name string) []byte {
	b, err := fs.ReadFile(vendor, name)
	if err != nil {
		panic("webui: " + err.Error())
	}
	return b
}
