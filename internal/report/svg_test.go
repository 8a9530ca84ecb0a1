package report

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// checkXML fails the test unless s is well-formed XML.
func checkXML(t *testing.T, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%.2000s", err, s)
		}
	}
}

func TestChartEdgeCases(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		s    []series
	}{
		// No series at all.
		{"no series", nil},
		// Series with no points, one of each kind.
		{"empty series", []series{{name: "a"}, {kind: kindPoints}, {kind: kindBars}, {kind: kindCross}, {kind: kindDashed, right: true}}},
		// A single point, drawn as a dot.
		{"single point", []series{{name: "one", x: []float64{3}, y: []float64{4}}}},
		// All values equal on both axes.
		{"all equal", []series{{x: []float64{2, 2, 2}, y: []float64{5, 5, 5}}, {kind: kindBars, width: 1, x: []float64{2}, y: []float64{5}}}},
		// NaN and Inf scattered through every kind.
		{"nan", []series{
			{x: []float64{0, 1, 2, 3}, y: []float64{1, nan, 3, inf}},
			{kind: kindPoints, x: []float64{nan, 1}, y: []float64{1, nan}},
			{kind: kindBars, width: 1, x: []float64{0, 1}, y: []float64{nan, 2}, base: []float64{0, nan}},
			{kind: kindCross, right: true, x: []float64{inf}, y: []float64{1}},
		}},
		// Only NaN.
		{"only nan", []series{{x: []float64{nan, nan}, y: []float64{nan, nan}}}},
		// Mismatched lengths.
		{"ragged", []series{{x: []float64{1, 2, 3}, y: []float64{1}}}},
		// Text that needs escaping.
		{"escape", []series{{name: `<b>"x" & 'y'</b>`, x: []float64{1, 2}, y: []float64{1, 2}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &chart{id: "c", title: "<t>", width: 400, height: 300, series: tt.s,
				x: axis{title: "x & y (s)"}, y: axis{title: "y"}, y2: axis{title: "y2"},
				rules: []rule{{vertical: true, v: 1}, {v: nan}}, notes: []string{"<note>"}}
			out := c.svg()
			checkXML(t, out)
			for _, bad := range []string{"NaN", "Inf", "<b>", "<t>", "<note>"} {
				if strings.Contains(out, bad) {
					t.Errorf("output contains %q:\n%s", bad, out)
				}
			}
		})
	}
}

func TestFixedIntegerAxis(t *testing.T) {
	t.Parallel()
	c := &chart{id: "c", width: 400, height: 300,
		x:      axis{fixed: true, lo: -0.5, hi: 1.5, integer: true},
		series: []series{{kind: kindBars, width: 1, x: []float64{0, 1}, y: []float64{3, 4}}}}
	out := c.svg()
	checkXML(t, out)
	if strings.Contains(out, ">0.5<") || strings.Contains(out, ">-1<") {
		t.Errorf("integer axis has a fractional or out-of-range tick:\n%s", out)
	}
}

func TestUpperPanel(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	c := &chart{id: "c", width: 400, height: 400, upperH: 100,
		x: axis{title: "x"}, y: axis{title: "y"}, upper: axis{title: "u (units)"},
		series: []series{
			{x: []float64{0, 1, 2}, y: []float64{1000, 2000, 3000}},
			{upper: true, color: "#123456", width: 1, x: []float64{0, 1, 2, 3}, y: []float64{0, 5, nan, 10}},
		}}
	out := c.svg()
	checkXML(t, out)
	if strings.Contains(out, "NaN") || !strings.Contains(out, ">u (units)</text>") || !strings.Contains(out, ">10</text>") {
		t.Errorf("upper panel lacks its axis title or its tick at 10, or shows NaN:\n%s", out)
	}
	i := strings.Index(out, `<g clip-path="url(#c-clip-upper)">`)
	if i < 0 || !strings.Contains(out[i:], `stroke="#123456"`) {
		t.Error("the upper series is not drawn in the upper panel's clip group")
	}
	_, legendH := c.legendLayout()
	f := c.frame(legendH)
	if f.u.at(0) != f.uBottom || f.u.at(10) != f.uTop || f.uBottom-f.uTop != 100 || f.top < f.uBottom {
		t.Errorf("upper panel %v-%v maps 0..10 to %v..%v; main panel from %v", f.uTop, f.uBottom, f.u.at(0), f.u.at(10), f.top)
	}
	c.series = c.series[:1] // an upper panel with nothing in it
	checkXML(t, c.svg())
}
