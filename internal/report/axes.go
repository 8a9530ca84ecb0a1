package report

import "strings"

// axes writes the axis lines, tick labels and axis titles of every panel.
func (f *frame) axes(b *strings.Builder, c *chart) {
	f.axisLines(b, f.top, f.bottom)
	b.WriteString(`<g text-anchor="middle">`)
	for i, t := range f.xt {
		text(b, f.x.at(t), f.bottom+16, c.x.label(i, t, f.xt))
	}
	b.WriteString(`<text class="axis-title" x="` + px((f.left+f.right)/2) + `" y="` + px(f.height-8) + `"` +
		colorAttr(c.x.color) + ">" + esc(c.x.title) + "</text>")
	b.WriteString(`</g><g text-anchor="end">`)
	for i, t := range f.yt {
		text(b, f.left-6, f.y.at(t)+4, c.y.label(i, t, f.yt))
	}
	b.WriteString("</g>")
	vtitle(b, 16, (f.top+f.bottom)/2, c.y)
	if f.hasUpper {
		f.upperAxes(b, c.upper)
	}
	if !f.hasY2 {
		return
	}
	b.WriteString(`<g text-anchor="start">`)
	for i, t := range f.y2t {
		text(b, f.right+6, f.y2.at(t)+4, c.y2.label(i, t, f.y2t))
	}
	b.WriteString("</g>")
	vtitle(b, f.width-6, (f.top+f.bottom)/2, c.y2)
}

// label returns the text of tick i at value t of the axis's ticks.
func (a axis) label(i int, t float64, ticks []float64) string {
	if a.labels != nil && a.hi > a.lo { // the ticks are a.ticks (axis.domain)
		if i < len(a.labels) {
			return a.labels[i]
		}
		return ""
	}
	return tickLabel(t, step(ticks))
}

// colorAttr returns a fill attribute for color, or nothing when empty.
func colorAttr(color string) string {
	if color == "" {
		return ""
	}
	return ` fill="` + color + `"`
}

// step returns the spacing of evenly spaced ticks (0 for fewer than two).
func step(ticks []float64) float64 {
	if len(ticks) < 2 {
		return 0
	}
	return ticks[1] - ticks[0]
}

// text writes an escaped text element at (x, y).
func text(b *strings.Builder, x, y float64, s string) {
	b.WriteString(`<text x="` + px(x) + `" y="` + px(y) + `">` + esc(s) + "</text>")
}

// vtitle writes a vertical axis title whose baseline runs through (x, y).
func vtitle(b *strings.Builder, x, y float64, a axis) {
	if a.title == "" {
		return
	}
	b.WriteString(`<text class="axis-title" text-anchor="middle" transform="translate(` + px(x) + " " + px(y) +
		`) rotate(-90)"` + colorAttr(a.color) + ">" + esc(a.title) + "</text>")
}

// notes writes short italic texts in the top left corner of the plot.
func (f *frame) notes(b *strings.Builder, notes []string) {
	for i, n := range notes {
		b.WriteString(`<text class="chart-note" font-style="italic" fill="` + colMuted + `" x="` + px(f.left+8) +
			`" y="` + px(f.top+16+float64(i)*15) + `">` + esc(n) + "</text>")
	}
}

// placed is a legend entry with its position.
type placed struct {
	legendItem
	x, y float64
}

// legendLayout places the legend entries in rows between the title and the
// plot and returns them with the height title and legend take.
func (c *chart) legendLayout() ([]placed, float64) {
	var items []legendItem
	for _, s := range c.series {
		if s.name != "" {
			items = append(items, legendItem{s.name, s.color, s.kind, s.width, s.opacity})
		}
	}
	items = append(items, c.extra...)
	if len(items) == 0 {
		return nil, titleH
	}
	const rowH, left = 18, 70
	out := make([]placed, 0, len(items))
	x, y := float64(left), titleH+14.0
	for _, it := range items {
		w := 24 + float64(len([]rune(it.name)))*charWidth + 18
		if x > left && x+w > float64(c.width)-10 {
			x, y = left, y+rowH
		}
		out = append(out, placed{it, x, y})
		x += w
	}
	return out, y + 6
}

// writeLegend writes the placed legend entries, a swatch and a label each,
// in one group.
func writeLegend(b *strings.Builder, items []placed) {
	if len(items) == 0 {
		return
	}
	b.WriteString(`<g class="chart-legend">`)
	for _, p := range items {
		swatch(b, p)
		text(b, p.x+24, p.y+4, p.name)
	}
	b.WriteString("</g>")
}

// swatch writes the small sample of how an entry's series is drawn.
func swatch(b *strings.Builder, p placed) {
	x, y := px(p.x), px(p.y)
	switch p.kind {
	case kindPoints:
		b.WriteString(`<circle fill="` + p.color + `" cx="` + px(p.x+9) + `" cy="` + y + `" r="4"/>`)
	case kindBars, kindSpans:
		b.WriteString(`<rect fill="` + p.color + `"` + opacity("fill-opacity", max(p.opacity, 0.5)) + ` x="` + x +
			`" y="` + px(p.y-5) + `" width="18" height="10"/>`)
	case kindBubbles:
		b.WriteString(`<circle fill="` + p.color + `" fill-opacity="0.45" stroke="` + p.color + `" cx="` +
			px(p.x+9) + `" cy="` + y + `" r="6"/>`)
	case kindRings:
		b.WriteString(`<circle fill="none" stroke="` + p.color + `" stroke-width="1.5" cx="` +
			px(p.x+9) + `" cy="` + y + `" r="6"/>`)
	case kindCross:
		b.WriteString(`<path fill="none" stroke="` + p.color + `" stroke-width="2" d="` + cross(p.x+9, p.y, 4) + `"/>`)
	default:
		dash := ""
		if p.kind == kindDashed {
			dash = ` stroke-dasharray="5 3"`
		}
		b.WriteString(`<path fill="none" stroke="` + p.color + `" stroke-width="` + px(max(1, p.width)) +
			`"` + dash + ` d="M` + x + " " + y + `h18"/>`)
	}
}

// axisLines writes the left and bottom axis lines of a panel spanning top
// to bottom, and the right one when the chart has a second y axis.
func (f *frame) axisLines(b *strings.Builder, top, bottom float64) {
	d := "M" + px(f.left) + " " + px(top) + "V" + px(bottom) + "H" + px(f.right)
	if f.hasY2 {
		d += "V" + px(top)
	}
	b.WriteString(`<path fill="none" stroke="` + colAxis + `" d="` + d + `"/>`)
}
