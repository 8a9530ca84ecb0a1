package report

import (
	"html"
	"strings"
)

// kind is how a series is drawn.
type kind uint8

const (
	kindLine    kind = iota // solid line through the points
	kindDashed              // dashed line through the points
	kindPoints              // one dot per point
	kindBars                // one bar per point, from its base up to y
	kindCross               // one "×" marker per point
	kindBubbles             // one circle per point, its radius from series.r
	kindRings               // one hollow circle per point, its radius from series.r
	kindSpans               // one rectangle per point, from x to x2 and from its base up to y
)

// series is one data set of a chart. NaN or infinite values are skipped; in
// a line they break it.
type series struct {
	name    string    // legend label; empty keeps the series out of the legend
	kind    kind      // how it is drawn
	color   string    // CSS colour
	width   float64   // line width or dot radius in px; bar spacing in x units
	opacity float64   // 0 means opaque
	right   bool      // plotted against the right y axis
	upper   bool      // plotted in the upper panel, against chart.upper
	x, y    []float64 // the points
	base    []float64 // bars only: bottom of each bar; nil means 0
	r       []float64 // bubbles only: radius of each bubble in px
	x2      []float64 // spans only: the right end of each span
}

// axis describes one axis of a chart.
type axis struct {
	title   string  // with its unit
	color   string  // title colour; empty means the default
	lo, hi  float64 // the domain when fixed
	fixed   bool    // use [lo, hi] instead of fitting the data
	zero    bool    // when fitting, keep 0 in the domain
	integer bool    // ticks on whole numbers only
	pad     float64 // when fitting, widen the data range by this fraction each side
	// ticks and labels, when labels is set, are the ticks of a fixed
	// domain [lo, hi] and the text printed at each.
	ticks  []float64
	labels []string
}

// rule is a dashed reference line across the plot.
type rule struct {
	vertical bool    // at x = v; otherwise horizontal at y = v
	v        float64 // where
	right    bool    // horizontal only: v is on the right axis
	color    string  // CSS colour
}

// legendItem is one legend entry.
type legendItem struct {
	name    string
	color   string
	kind    kind
	width   float64
	opacity float64 // bars only: as the bars are drawn; 0 means opaque
}

// chart is a complete figure: axes, series, reference lines, legend and
// notes. Its svg method renders it. With upperH > 0 it has a second plot,
// the upper panel, of upperH px above the main one: it shares the x axis
// and has a y axis of its own, upper, for the series marked upper.
type chart struct {
	id, title     string
	width, height int
	x, y, y2      axis
	upper         axis
	upperH        int
	series        []series
	rules         []rule
	extra         []legendItem // legend entries after the named series
	notes         []string     // short texts shown inside the plot
}

// Colours shared by all charts, so a quantity looks the same everywhere.
const (
	colLoad   = "#1f77b4" // offered load
	colLive   = "#7f7f7f" // live testers
	colRT     = "#ff7f0e" // response time
	colThr    = "#2ca02c" // throughput and successful calls
	colMark   = "#d62728" // failed testers, saturation
	colUtil   = "#9467bd" // utilization
	colFair   = "#8c564b" // fairness
	colGrid   = "#e6e6e6"
	colAxis   = "#888"
	colText   = "#333"
	colMuted  = "#666"
	colGuide  = "#777" // legend swatches that stand for a style, not a quantity
	fontSize  = 12
	charWidth = 6.6 // rough px per character at fontSize, for layout
	titleH    = 24  // px taken by the chart's visible title
	fontStack = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, Noto Sans, sans-serif"
)

// esc escapes text for XML and HTML alike.
func esc(s string) string { return html.EscapeString(s) }

// svg renders the chart as an <svg> element to put inline in HTML, where
// it needs no namespace declaration; standalone makes a file of it.
func (c *chart) svg() string {
	var b strings.Builder
	legend, legendH := c.legendLayout()
	f := c.frame(legendH)
	c.open(&b)
	c.heading(&b)
	f.grid(&b)
	f.plot(&b, c)
	f.axes(&b, c)
	writeLegend(&b, legend)
	f.notes(&b, c.notes)
	b.WriteString("</svg>")
	return b.String()
}

// plot writes the series and reference lines, each panel's clipped to its
// plot area; reference lines are drawn in the main panel.
func (f *frame) plot(b *strings.Builder, c *chart) {
	b.WriteString(`<g clip-path="url(#` + f.clip + `)">`)
	for i := range c.series {
		if !(f.hasUpper && c.series[i].upper) {
			f.draw(b, &c.series[i])
		}
	}
	for _, r := range c.rules {
		f.rule(b, r)
	}
	b.WriteString("</g>")
	if !f.hasUpper {
		return
	}
	b.WriteString(`<g clip-path="url(#` + f.upperClip() + `)">`)
	for i := range c.series {
		if c.series[i].upper {
			f.draw(b, &c.series[i])
		}
	}
	b.WriteString("</g>")
}

// open writes the svg start tag, its title for screen readers and a white
// background (a standalone file has no page behind it).
func (c *chart) open(b *strings.Builder) {
	w, h := itoa(c.width), itoa(c.height)
	b.WriteString(`<svg id="` + esc(c.id) + `" class="chart" viewBox="0 0 ` + w + " " + h +
		`" width="` + w + `" height="` + h + `" role="img" font-family="` + esc(fontStack) +
		`" font-size="` + itoa(fontSize) + `" fill="` + colText + `">`)
	b.WriteString("<title>" + esc(c.title) + "</title>")
	b.WriteString(`<rect width="` + w + `" height="` + h + `" fill="#fff"/>`)
}

// heading writes the chart's title, visible at the top.
func (c *chart) heading(b *strings.Builder) {
	b.WriteString(`<text class="chart-title" x="` + px(float64(c.width)/2) + `" y="17" text-anchor="middle"` +
		` font-size="14" font-weight="600">` + esc(c.title) + "</text>")
}

// standalone turns the inline svg of a chart into the content of an .svg
// file: an XML declaration and the SVG namespace.
func standalone(svg string) []byte {
	const decl = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	return []byte(decl + strings.Replace(svg, "<svg ", `<svg xmlns="http://www.w3.org/2000/svg" `, 1) + "\n")
}
