// Package human writes numbers for people: never in scientific notation,
// and a measure in the unit of its family that keeps it readable (µs, ms
// or s for a time; bit/s to Tbit/s for a bit rate; B to TB for bytes).
// One function per unit family, used by every text a person reads (the
// command line's tables and logs); charts.js has the same families for
// the dashboard and report.html.
package human

import (
	"math"
	"strconv"
)

// unit is one unit of a family: its name and its size in the family's
// base unit.
type unit struct {
	name string
	size float64
}

// Families, smallest unit first.
var (
	times = []unit{{"ns", 1e-9}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}}
	rates = []unit{{"bit/s", 1}, {"kbit/s", 1e3}, {"Mbit/s", 1e6}, {"Gbit/s", 1e9}, {"Tbit/s", 1e12}}
	sizes = []unit{{"B", 1}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}}
)

// Seconds writes a time given in seconds with three significant digits,
// in ns, µs, ms or s: "12.3 ms", "1.5 s", "250 µs".
func Seconds(s float64) string { return scaled(s, times) }

// Millis writes a time given in milliseconds as Seconds does.
func Millis(ms float64) string { return scaled(ms/1e3, times) }

// Bits writes a bit rate given in bit/s with three significant digits, in
// bit/s, kbit/s, Mbit/s, Gbit/s or Tbit/s: "94.1 Mbit/s".
func Bits(bps float64) string { return scaled(bps, rates) }

// Bytes writes a size given in bytes with three significant digits, in
// B, kB, MB, GB or TB (powers of 1000): "1.2 GB".
func Bytes(n float64) string { return scaled(n, sizes) }

// Number writes v with at most sig significant digits and no exponent,
// without trailing zeros: 12345678.9 is "12345700" at 6 digits, 0.000012345
// is "0.0000123" at 3.
func Number(v float64, sig int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	r := round(v, sig)
	s := strconv.FormatFloat(r, 'f', decimals(r, sig), 64)
	return trimZeros(s)
}

// scaled writes v (in the family's base unit) in the largest unit of fam
// it is at least 1 of (the smallest for less), three significant digits.
func scaled(v float64, fam []unit) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64) + " " + fam[len(fam)-1].name
	}
	r := round(v, 3)
	u := fam[0]
	for _, x := range fam {
		if math.Abs(r) >= x.size || (r == 0 && x.size == 1) {
			u = x
		}
	}
	return Number(r/u.size, 3) + " " + u.name
}

// round rounds v to sig significant digits.
func round(v float64, sig int) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, float64(sig-1)-math.Floor(math.Log10(math.Abs(v))))
	if math.IsInf(p, 0) || math.IsInf(v*p, 0) { // too small or too large to scale: already that precise
		return v
	}
	return math.Round(v*p) / p
}

// decimals is how many digits after the point v needs for sig significant
// digits.
func decimals(v float64, sig int) int {
	if v == 0 {
		return 0
	}
	return max(0, sig-1-int(math.Floor(math.Log10(math.Abs(v)))))
}

// trimZeros drops the zeros after a decimal point, and the point.
func trimZeros(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			for len(s) > i && (s[len(s)-1] == '0' || s[len(s)-1] == '.') {
				s = s[:len(s)-1]
			}
			return s
		}
	}
	return s
}
