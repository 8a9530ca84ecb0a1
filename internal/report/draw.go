package report

import (
	"strings"
)

// yScale returns the scale a series is plotted against.
func (f *frame) yScale(s *series) scale {
	if s.upper && f.hasUpper {
		return f.u
	}
	return f.sideScale(s.right)
}

// sideScale returns the scale of the main panel's right or left axis.
func (f *frame) sideScale(right bool) scale {
	if right && f.hasY2 {
		return f.y2
	}
	return f.y
}

// draw writes one series.
func (f *frame) draw(b *strings.Builder, s *series) {
	switch s.kind {
	case kindLine, kindDashed:
		f.line(b, s)
	case kindPoints:
		f.points(b, s)
	case kindBars:
		f.bars(b, s)
	case kindCross:
		f.crosses(b, s)
	case kindBubbles, kindRings:
		f.bubbles(b, s)
	case kindSpans:
		f.spans(b, s)
	}
}

// opacity returns the opacity attribute for o, or nothing when opaque.
func opacity(attr string, o float64) string {
	if o <= 0 || o >= 1 {
		return ""
	}
	return ` ` + attr + `="` + px(o) + `"`
}

// line writes a line series as one path; NaN points break the line and a
// lone point becomes a dot.
func (f *frame) line(b *strings.Builder, s *series) {
	ys := f.yScale(s)
	var d strings.Builder
	seg := 0 // points in the current piece of line
	for i := range min(len(s.x), len(s.y)) {
		if !finite(s.x[i]) || !finite(s.y[i]) {
			if seg == 1 {
				d.WriteString("h0")
			}
			seg = 0
			continue
		}
		xy := px(f.x.at(s.x[i])) + " " + px(ys.at(s.y[i]))
		switch seg {
		case 0:
			d.WriteString("M" + xy)
		case 1:
			d.WriteString("L" + xy)
		default:
			d.WriteString(" " + xy)
		}
		seg++
	}
	if seg == 1 {
		d.WriteString("h0")
	}
	if d.Len() == 0 {
		return
	}
	b.WriteString(`<path fill="none" stroke="` + s.color + `" stroke-width="` + px(s.width) +
		`" stroke-linejoin="round" stroke-linecap="round"` + opacity("stroke-opacity", s.opacity))
	if s.kind == kindDashed {
		b.WriteString(` stroke-dasharray="6 4"`)
	}
	b.WriteString(` d="` + d.String() + `"/>`)
}

// points writes a scatter series, one circle per finite point.
func (f *frame) points(b *strings.Builder, s *series) {
	ys := f.yScale(s)
	r := px(s.width)
	b.WriteString(`<g fill="` + s.color + `"` + opacity("fill-opacity", s.opacity) + `>`)
	for i := range min(len(s.x), len(s.y)) {
		if finite(s.x[i]) && finite(s.y[i]) {
			b.WriteString(`<circle cx="` + px(f.x.at(s.x[i])) + `" cy="` + px(ys.at(s.y[i])) + `" r="` + r + `"/>`)
		}
	}
	b.WriteString("</g>")
}

// bubbles writes a bubble series: a translucent circle of radius s.r[i]
// px at each finite point, outlined so that overlaps stay readable; rings
// (kindRings) are the outline alone.
func (f *frame) bubbles(b *strings.Builder, s *series) {
	ys := f.yScale(s)
	fill, stroke := px(max(0.1, min(1, s.opacity))), "0.8"
	if s.kind == kindRings {
		fill, stroke = "0", "1.5"
	}
	b.WriteString(`<g fill="` + s.color + `" fill-opacity="` + fill +
		`" stroke="` + s.color + `" stroke-width="` + stroke + `">`)
	for i := range min(len(s.x), len(s.y), len(s.r)) {
		if finite(s.x[i]) && finite(s.y[i]) && finite(s.r[i]) && s.r[i] > 0 {
			b.WriteString(`<circle cx="` + px(f.x.at(s.x[i])) + `" cy="` + px(ys.at(s.y[i])) +
				`" r="` + px(s.r[i]) + `"/>`)
		}
	}
	b.WriteString("</g>")
}

// bars writes a bar series, each bar centred on its x and 80% of s.width
// x-units wide (at least half a pixel).
func (f *frame) bars(b *strings.Builder, s *series) {
	ys := f.yScale(s)
	w := max(0.5, (f.x.at(s.width)-f.x.at(0))*0.8)
	b.WriteString(`<g fill="` + s.color + `"` + opacity("fill-opacity", s.opacity) + `>`)
	for i := range min(len(s.x), len(s.y)) {
		base := s.baseAt(i)
		if !finite(s.x[i]) || !finite(s.y[i]) || !finite(base) || s.y[i] == base {
			continue
		}
		top, bot := ys.at(max(s.y[i], base)), ys.at(min(s.y[i], base))
		b.WriteString(`<rect x="` + px(f.x.at(s.x[i])-w/2) + `" y="` + px(top) + `" width="` + px(w) +
			`" height="` + px(max(0.1, bot-top)) + `"/>`)
	}
	b.WriteString("</g>")
}

// crosses writes an "×" marker at each finite point, on a white halo.
func (f *frame) crosses(b *strings.Builder, s *series) {
	ys := f.yScale(s)
	var d strings.Builder
	for i := range min(len(s.x), len(s.y)) {
		if finite(s.x[i]) && finite(s.y[i]) {
			d.WriteString(cross(f.x.at(s.x[i]), ys.at(s.y[i]), 5))
		}
	}
	if d.Len() == 0 {
		return
	}
	w := max(1, s.width)
	b.WriteString(`<path fill="none" stroke="#fff" stroke-width="` + px(w+2) + `" d="` + d.String() + `"/>`)
	b.WriteString(`<path fill="none" stroke="` + s.color + `" stroke-width="` + px(w) + `" d="` + d.String() + `"/>`)
}

// cross returns the path data of an "×" of half-size r centred on (x, y).
func cross(x, y, r float64) string {
	return "M" + px(x-r) + " " + px(y-r) + "l" + px(2*r) + " " + px(2*r) +
		"m0 " + px(-2*r) + "l" + px(-2*r) + " " + px(2*r)
}

// rule writes a dashed reference line across the plot area.
func (f *frame) rule(b *strings.Builder, r rule) {
	if !finite(r.v) {
		return
	}
	var d string
	if r.vertical {
		d = "M" + px(f.x.at(r.v)) + " " + px(f.top) + "V" + px(f.bottom)
	} else {
		d = "M" + px(f.left) + " " + px(f.sideScale(r.right).at(r.v)) + "H" + px(f.right)
	}
	b.WriteString(`<path fill="none" stroke="` + r.color + `" stroke-width="1.5" stroke-dasharray="6 4" d="` + d + `"/>`)
}
