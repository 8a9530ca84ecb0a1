package report

import "strings"

// spans writes a span series: one rectangle per finite point, from x to
// x2 across and from its base up to y (at least half a pixel wide).
func (f *frame) spans(b *strings.Builder, s *series) {
	ys := f.yScale(s)
	b.WriteString(`<g fill="` + s.color + `"` + opacity("fill-opacity", s.opacity) + `>`)
	for i := range min(len(s.x), len(s.x2), len(s.y)) {
		base := s.baseAt(i)
		if !finite(s.x[i]) || !finite(s.x2[i]) || !finite(s.y[i]) || !finite(base) || s.x2[i] < s.x[i] {
			continue
		}
		x0, x1 := f.x.at(s.x[i]), f.x.at(s.x2[i])
		top, bot := ys.at(max(s.y[i], base)), ys.at(min(s.y[i], base))
		b.WriteString(`<rect x="` + px(x0) + `" y="` + px(top) + `" width="` + px(max(0.5, x1-x0)) +
			`" height="` + px(max(0.1, bot-top)) + `"/>`)
	}
	b.WriteString("</g>")
}
