package human

import (
	"math"
	"strconv"
)

// suffixes divide a tick of a million and more by a power of 1000, as
// charts.js's axes do.
var suffixes = []string{"", "k", "M", "G", "T"}

// Tick writes v, one of an axis's ticks step apart, with the decimals the
// step needs and never an exponent: below a million as a plain decimal
// ("0.25", "1200", "-999999"), from a million up divided by a power of
// 1000 with the suffix M, G or T ("2.5M", "30M", "1.23456790G" for ticks
// 10 apart), as charts.js's axes write them. NaN and ±Inf are written as
// such; a step of 0 or less, or not finite, asks for no decimals.
func Tick(v, step float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if v == 0 {
		return "0" // also for -0
	}
	k := 0
	if a := math.Abs(v); a >= 1e6 {
		k = min(len(suffixes)-1, int(math.Floor(math.Log10(a)/3)))
	}
	scale := math.Pow(1000, float64(k))
	return strconv.FormatFloat(v/scale, 'f', stepDecimals(step/scale), 64) + suffixes[k]
}

// stepDecimals is how many digits after the point tell ticks step apart:
// those of step itself (0.25 needs 2, 20 none), at most 3 more than its
// first significant digit asks (a step of 1/3 gets 4).
func stepDecimals(step float64) int {
	if !(step > 0) || math.IsInf(step, 0) {
		return 0
	}
	first := max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	d := first
	for ; d < first+3; d++ {
		x := step * math.Pow(10, float64(d))
		if math.Abs(x-math.Round(x)) <= 1e-6*x {
			break
		}
	}
	return d
}
