package report

import (
	"math"
	"strings"
	"testing"
)

// TestChartHugeFiniteValues: finite values whose range overflows float64
// (a client's extras of ±1e308, say), a radius of 1e308 and points far
// outside a fixed domain still make a well-formed chart with no NaN or
// Inf in it.
func TestChartHugeFiniteValues(t *testing.T) {
	t.Parallel()
	big := math.MaxFloat64
	for name, s := range map[string][]series{
		"y range overflows":   {{x: []float64{0, 1, 2}, y: []float64{-1e308, 1e308, 5}}},
		"x range overflows":   {{kind: kindPoints, x: []float64{-big, big}, y: []float64{1, 2}}},
		"bars overflow":       {{kind: kindBars, width: 1, x: []float64{0, 1}, y: []float64{1e308, -1e308}}},
		"huge radius":         {{kind: kindBubbles, x: []float64{0, 1}, y: []float64{1, 2}, r: []float64{1e308, 3}}},
		"last tick overflows": {{x: []float64{0, 1}, y: []float64{0, 1.7e308}}},
		"right axis":          {{right: true, x: []float64{0, 1}, y: []float64{-big, big}}, {x: []float64{0, 1}, y: []float64{1, 2}}},
	} {
		for _, fixed := range []bool{false, true} {
			c := &chart{id: "c", title: "t", width: 400, height: 300, series: s,
				x: axis{title: "x", fixed: fixed, lo: 0, hi: 1, pad: 0.05}, y: axis{title: "y", zero: true, pad: 0.1}, y2: axis{title: "y2"}}
			out := c.svg()
			checkXML(t, out)
			for _, bad := range []string{"NaN", "Inf"} {
				if i := strings.Index(out, bad); i >= 0 {
					t.Errorf("%s (fixed x %v): %s in %s", name, fixed, bad, out[max(0, i-120):min(len(out), i+40)])
				}
			}
		}
	}
}
