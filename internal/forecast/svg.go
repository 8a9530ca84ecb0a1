package forecast

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/diperf/diperf/internal/human"
)

// Line is one curve of a chart.
type Line struct {
	Name string
	Y    []float64 // one per X; NaN leaves a gap
}

// chart geometry, px.
const (
	chartW, chartH             = 640.0, 400.0
	cPadL, cPadR, cPadT, cPadB = 70.0, 130.0, 40.0, 50.0
)

var lineColors = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"}

// ChartSVG draws lines against x on linear axes from zero, with a legend:
// small hand-written SVG in the style of the report's graphs.
func ChartSVG(title, xLabel, yLabel string, x []float64, lines []Line) []byte {
	xMax, yMax := niceMax(x), 0.0
	for _, l := range lines {
		yMax = math.Max(yMax, niceMax(l.Y))
	}
	px := func(v float64) float64 { return clampPx(cPadL + v/xMax*(chartW-cPadL-cPadR)) }
	py := func(v float64) float64 { return clampPx(chartH - cPadB - v/yMax*(chartH-cPadT-cPadB)) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%g" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", cPadL, html.EscapeString(title))
	for i := 0; i <= 5; i++ {
		xv, yv := xMax/5*float64(i), yMax/5*float64(i)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px(xv), py(0), px(xv), py(yMax), px(xv), py(0)+16, label(xv))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", px(0), py(yv), px(xMax), py(yv), px(0)-6, py(yv)+4, label(yv))
	}
	fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", px(0), py(yMax), px(xMax)-px(0), py(0)-py(yMax))
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (px(0)+px(xMax))/2, chartH-12, html.EscapeString(xLabel))
	fmt.Fprintf(&b, `<text transform="translate(18 %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (py(0)+py(yMax))/2, html.EscapeString(yLabel))
	for i, l := range lines {
		c := lineColors[i%len(lineColors)]
		var pts []string
		for j, y := range l.Y {
			if j < len(x) && finite(x[j]) && finite(y) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(x[j]), py(y)))
			}
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), c)
		lx, ly := chartW-cPadR+14, cPadT+14+18*float64(i)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/><text x="%.1f" y="%.1f">%s</text>`+"\n", lx, ly-4, lx+20, ly-4, c, lx+26, ly, html.EscapeString(l.Name))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// finite says whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// clampPx keeps a coordinate of a value far outside the axes (a negative
// one, say) finite, far off the chart.
func clampPx(v float64) float64 { return min(max(v, -1e6), 1e6) }

// niceMax is 1, 2 or 5 × 10^k at or above the largest finite value of vs
// (1 when there is none above zero; the value itself when that rounding
// would overflow).
func niceMax(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		if finite(v) {
			m = math.Max(m, v)
		}
	}
	if m <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(m)))
	for _, f := range []float64{1, 2, 5, 10} {
		if n := f * p; n >= m && !math.IsInf(n, 1) {
			return n
		}
	}
	return m
}

// label prints an axis value shortly (1.5k, 20M, 0.00012), never in
// scientific notation.
func label(v float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= u.f {
			return human.Number(v/u.f, 3) + u.s
		}
	}
	return human.Number(v, 3)
}
