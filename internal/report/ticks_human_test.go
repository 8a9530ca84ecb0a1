package report

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

// exponent matches a number in scientific notation ("3e+07", "1.2E-05").
var exponent = regexp.MustCompile(`[0-9][eE][+-]?[0-9]`)

// The report's figures and table cells are never in scientific notation,
// however large, small or negative, and never panic.
func TestNumNoExponent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0.00001234, "0.00001234"},
		{-0.000012345, "-0.00001235"}, // four significant digits
		{3e-7, "0.0000003"},
		{0.0001, "0.0001"},
		{9999.5, "10000"}, // not "1e+04"
		{123456.7, "123457"},
		{1e15, "1000000000000000"},
		{-2.5e16, "-25000000000000000"},
		{math.Inf(1), "–"},
		{math.NaN(), "–"},
	} {
		if got := num(c.v); got != c.want {
			t.Errorf("num(%g) = %q, want %q", c.v, got, c.want)
		}
	}
	for _, v := range []float64{5e-324, 1e-300, -1e-20, math.MaxFloat64, -math.MaxFloat64} {
		if got := num(v); exponent.MatchString(got) {
			t.Errorf("num(%g) = %q", v, got)
		}
	}
}

// The SVG fallback's tick labels: no exponent from 10^7 up nor for tiny
// steps; millions and more in M, G or T.
func TestTickLabelNoExponent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v, step float64
		want    string
	}{
		{3e7, 1e7, "30M"},
		{2.5e6, 5e5, "2.5M"},
		{1.5e9, 5e8, "1.5G"},
		{-4e10, 1e10, "-40G"},
		{2e-7, 1e-7, "0.0000002"},
		{1500, 500, "1500"},
	} {
		if got := tickLabel(c.v, c.step); got != c.want {
			t.Errorf("tickLabel(%g, %g) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

// A chart of values in the tens of millions and one of values below a
// millionth write their axes without an exponent.
func TestChartTicksNoExponent(t *testing.T) {
	t.Parallel()
	for name, y := range map[string][]float64{
		"tens of millions": {1.2e7, 3.4e7, 2.9e7},
		"billions":         {-2e9, 5e9},
		"millionths":       {1e-7, 3.5e-7, 2e-7},
	} {
		c := &chart{id: "c", title: "t", width: 400, height: 300,
			series: []series{{x: []float64{0, 1, 2}[:len(y)], y: y}},
			x:      axis{title: "x"}, y: axis{title: "y", pad: 0.05}}
		out := c.svg()
		checkXML(t, out)
		for _, txt := range regexp.MustCompile(`<text [^>]*>([^<]*)</text>`).FindAllStringSubmatch(out, -1) {
			if exponent.MatchString(txt[1]) {
				t.Errorf("%s: tick label %q", name, txt[1])
			}
		}
		if name == "tens of millions" && !strings.Contains(out, "M</text>") {
			t.Errorf("%s: no tick in M in %s", name, out)
		}
	}
}
