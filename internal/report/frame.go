package report

import (
	"strconv"
	"strings"
)

// scale maps a data interval [d0, d1] onto a pixel interval [r0, r1].
type scale struct{ d0, d1, r0, r1 float64 }

// at returns the pixel position of v. The differences are taken of
// halves, so that a domain as wide as float64 goes does not overflow.
func (s scale) at(v float64) float64 {
	return s.r0 + (v/2-s.d0/2)/(s.d1/2-s.d0/2)*(s.r1-s.r0)
}

// span accumulates the range of the finite values it is given.
type span struct {
	lo, hi float64
	ok     bool
}

// add widens the span to include v, unless v is NaN or infinite.
func (s *span) add(v float64) {
	switch {
	case !finite(v):
	case !s.ok:
		s.lo, s.hi, s.ok = v, v, true
	default:
		s.lo, s.hi = min(s.lo, v), max(s.hi, v)
	}
}

// domain picks the axis domain and its ticks for the data range sp.
func (a axis) domain(sp span, target int) (float64, float64, []float64) {
	minStep := 0.0
	if a.integer {
		minStep = 1
	}
	if a.labels != nil && a.hi > a.lo {
		return a.lo, a.hi, a.ticks
	}
	if a.fixed && a.hi > a.lo {
		var in []float64
		for _, t := range ticksWithStep(a.lo, a.hi, target, minStep) {
			if t >= a.lo && t <= a.hi {
				in = append(in, t)
			}
		}
		return a.lo, a.hi, in
	}
	lo, hi := sp.lo, sp.hi
	if !sp.ok {
		lo, hi = 0, 1
	}
	if d := (hi/2 - lo/2) * 2 * a.pad; d > 0 && finite(lo-d) && finite(hi+d) {
		lo, hi = lo-d, hi+d
		if a.zero && sp.ok && sp.lo >= 0 {
			lo = max(lo, 0) // padding never takes non-negative data below zero
		}
	}
	if a.zero {
		lo, hi = min(lo, 0), max(hi, 0)
	}
	t := ticksWithStep(lo, hi, target, minStep)
	return t[0], t[len(t)-1], t
}

// frame is a chart laid out in pixels: the plot area, scales and ticks.
// left, right, top and bottom bound the main panel; the upper panel, when
// hasUpper, spans uTop to uBottom between the same left and right.
type frame struct {
	left, right, top, bottom float64
	uTop, uBottom            float64
	width, height            float64
	x, y, y2, u              scale
	xt, yt, y2t, ut          []float64
	hasY2, hasUpper          bool
	clip                     string // id of the plot-area clip path
}

// frame lays the chart out, leaving legendH px above the plot for the legend.
func (c *chart) frame(legendH float64) *frame {
	f := &frame{width: float64(c.width), height: float64(c.height), clip: esc(c.id) + "-clip"}
	f.hasY2 = c.hasRight()
	f.left, f.right = 70, f.width-20
	if f.hasY2 {
		f.right = f.width - 70
	}
	f.top, f.bottom = 12+legendH, f.height-44
	if c.upperH > 0 {
		f.hasUpper = true
		f.uTop, f.uBottom = f.top, f.top+float64(c.upperH)
		f.top = f.uBottom + panelGap
	}
	xs, ys, y2s, us := c.spans()
	var d0, d1 float64
	d0, d1, f.xt = c.x.domain(xs, 8)
	f.x = scale{d0, d1, f.left, f.right}
	d0, d1, f.yt = c.y.domain(ys, 5)
	f.y = scale{d0, d1, f.bottom, f.top}
	d0, d1, f.y2t = c.y2.domain(y2s, 5)
	f.y2 = scale{d0, d1, f.bottom, f.top}
	d0, d1, f.ut = c.upper.domain(us, upperTicks)
	f.u = scale{d0, d1, f.uBottom, f.uTop}
	return f
}

// hasRight reports whether any series uses the right axis.
func (c *chart) hasRight() bool {
	for _, s := range c.series {
		if s.right {
			return true
		}
	}
	return false
}

// spans returns the data ranges of the x, left y, right y and upper
// panel's y axes.
func (c *chart) spans() (xs, ys, y2s, us span) {
	for _, s := range c.series {
		ya := &ys
		switch {
		case s.upper && c.upperH > 0:
			ya = &us
		case s.right:
			ya = &y2s
		}
		for i := range min(len(s.x), len(s.y)) {
			if !finite(s.x[i]) || !finite(s.y[i]) {
				continue
			}
			xs.add(s.x[i])
			ya.add(s.y[i])
			if s.kind == kindBars {
				xs.add(s.x[i] - s.width/2)
				xs.add(s.x[i] + s.width/2)
				ya.add(s.baseAt(i))
			}
			if s.kind == kindSpans && i < len(s.x2) && finite(s.x2[i]) {
				xs.add(s.x2[i])
				ya.add(s.baseAt(i))
			}
		}
	}
	for _, r := range c.rules {
		switch {
		case r.vertical:
			xs.add(r.v)
		case r.right:
			y2s.add(r.v)
		default:
			ys.add(r.v)
		}
	}
	return xs, ys, y2s, us
}

// baseAt returns the bottom of bar i.
func (s *series) baseAt(i int) float64 {
	if i < len(s.base) {
		return s.base[i]
	}
	return 0
}

// grid writes the light gridlines at the x and left y ticks of each
// panel, and the clip rectangle of each panel's plot area.
func (f *frame) grid(b *strings.Builder) {
	b.WriteString(`<defs>`)
	clipRect(b, f.clip, f.left, f.top, f.right, f.bottom)
	if f.hasUpper {
		clipRect(b, f.upperClip(), f.left, f.uTop, f.right, f.uBottom)
	}
	b.WriteString(`</defs><path fill="none" stroke="` + colGrid + `" d="`)
	f.gridLines(b, f.top, f.bottom, f.yt, f.y)
	if f.hasUpper {
		f.gridLines(b, f.uTop, f.uBottom, f.ut, f.u)
	}
	b.WriteString(`"/>`)
}

// clipRect writes a clip path named id of the rectangle (x0, y0)-(x1, y1).
func clipRect(b *strings.Builder, id string, x0, y0, x1, y1 float64) {
	b.WriteString(`<clipPath id="` + id + `"><rect x="` + px(x0) + `" y="` + px(y0) +
		`" width="` + px(x1-x0) + `" height="` + px(y1-y0) + `"/></clipPath>`)
}

// gridLines writes the path data of one panel's gridlines: vertical lines
// at the x ticks from top to bottom, horizontal lines at the ticks yt of y.
func (f *frame) gridLines(b *strings.Builder, top, bottom float64, yt []float64, y scale) {
	for _, t := range f.xt {
		b.WriteString("M" + px(f.x.at(t)) + " " + px(top) + "V" + px(bottom))
	}
	for _, t := range yt {
		b.WriteString("M" + px(f.left) + " " + px(y.at(t)) + "H" + px(f.right))
	}
}

// itoa is strconv.Itoa, short.
func itoa(i int) string { return strconv.Itoa(i) }
