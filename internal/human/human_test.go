package human

import (
	"math"
	"strings"
	"testing"
)

// Each family scales a value to the unit that keeps it readable, three
// significant digits, never an exponent.
func TestFamilies(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Seconds(0), "0 s"},
		{Seconds(0.0123), "12.3 ms"},
		{Seconds(1.5), "1.5 s"},
		{Seconds(3600), "3600 s"},
		{Seconds(0.00025), "250 µs"},
		{Seconds(4e-8), "40 ns"},
		{Millis(0.0123), "12.3 µs"},
		{Millis(1234), "1.23 s"},
		{Millis(999.6), "1 s"},
		{Bits(0), "0 bit/s"},
		{Bits(940), "940 bit/s"},
		{Bits(999.6), "1 kbit/s"},
		{Bits(94.12e6), "94.1 Mbit/s"},
		{Bits(1.234e10), "12.3 Gbit/s"},
		{Bits(1e12), "1 Tbit/s"},
		{Bytes(1.2e9), "1.2 GB"},
		{Bytes(512), "512 B"},
		{Number(12345678.9, 6), "12345700"},
		{Number(0.000012345, 3), "0.0000123"},
		{Number(2.5, 6), "2.5"},
		{Number(-1234.5678, 6), "-1234.57"},
		{Number(0, 6), "0"},
		{Number(1e20, 3), "100000000000000000000"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// No value, however large or small, comes out in scientific notation.
func TestNoExponent(t *testing.T) {
	for _, v := range []float64{1e-300, 1e-9, 3e-7, 1e6, 1.5e15, 1e150, math.MaxFloat64, -2e-12, 5e-324} {
		for _, s := range []string{Seconds(v), Bits(v), Bytes(v), Number(v, 6)} {
			if strings.ContainsAny(s, "eE") {
				t.Errorf("%g written %q", v, s)
			}
		}
	}
}
