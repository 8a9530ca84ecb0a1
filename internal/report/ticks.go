package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/human"
)

// maxTicks bounds how many ticks niceTicks will ever return.
const maxTicks = 1000

// niceStep rounds raw up to the nearest 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / mag; {
	case f <= 1:
		return mag
	case f <= 2:
		return 2 * mag
	case f <= 5:
		return 5 * mag
	default:
		return 10 * mag
	}
}

// niceTicks returns evenly spaced round tick values (a 1-2-5 step) covering
// [lo, hi] with about target intervals. The first and last ticks enclose the
// range. A degenerate or non-finite range is widened so that at least two
// ticks always come back.
func niceTicks(lo, hi float64, target int) []float64 {
	return ticksWithStep(lo, hi, target, 0)
}

// ticksWithStep is niceTicks with a lower bound on the step (0: none).
func ticksWithStep(lo, hi float64, target int, minStep float64) []float64 {
	lo, hi = widen(lo, hi)
	if target < 1 {
		target = 1
	}
	step := math.Max(niceStep((hi-lo)/float64(target)), minStep)
	first, last := math.Floor(lo/step), math.Ceil(hi/step)
	if math.IsInf(step, 0) || last-first > maxTicks || !(last > first) || !finite(first*step) || !finite(last*step) {
		return []float64{lo, hi}
	}
	ticks := make([]float64, 0, int(last-first)+1)
	for k := first; k <= last; k++ {
		ticks = append(ticks, clean(k*step))
	}
	return ticks
}

// widen makes [lo, hi] a finite, ordered, non-empty interval.
func widen(lo, hi float64) (float64, float64) {
	if !finite(lo) || !finite(hi) {
		return 0, 1
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			return lo, lo + 1
		}
		return lo - d, hi + d
	}
	return lo, hi
}

// clean drops floating-point noise such as 0.30000000000000004.
func clean(v float64) float64 {
	c, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil || c == 0 {
		return 0 // also turns -0 into 0
	}
	return c
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// tickLabel prints a tick value with just the decimals its step needs,
// never with an exponent: from a million up in M, G or T ("30M"), as the
// interactive charts (webui/charts.js) write the same ticks.
func tickLabel(v, step float64) string { return human.Tick(v, step) }

// maxPx bounds the pixel coordinates px prints: far outside any chart
// (and clipped), where a value far outside a fixed domain lands.
const maxPx = 1e6

// px prints a pixel coordinate with at most one decimal, within ±maxPx
// (0 for NaN, which the drawing never asks for: a last guard that no
// "NaN" or "Inf" reaches the SVG).
func px(v float64) string {
	if math.IsNaN(v) {
		v = 0
	}
	v = min(max(v, -maxPx), maxPx)
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// num prints a figure for people: four significant digits, from 10,000
// up rounded to a whole number, never an exponent; "–" when undefined.
func num(v float64) string {
	switch {
	case !finite(v):
		return "–"
	case v == 0:
		return "0"
	case math.Abs(v) >= 1e4:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if s := strconv.FormatFloat(v, 'g', 4, 64); !strings.Contains(s, "e") {
		return s
	}
	return human.Number(v, 4) // below 0.0001, or 9999.5 rounded up to 10000
}
