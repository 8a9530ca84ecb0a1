package compare

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	a := synth(base, 1)
	b := synth(base.with(func(s *spec) { s.rtMs = 40 }), 2)
	b.Summary.Saturation.Saturated = false
	c := Compare(a, b, Options{Resamples: 200})
	var out bytes.Buffer
	if err := c.Format(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	tests := []struct {
		name string
		want string
	}{
		// the header names every column
		{"header", "metric"},
		// the response-time row has its unit, a signed difference and a mark
		{"rt row", "response time median (ms)"},
		// a run that did not saturate is starred and the star explained
		{"star", "(*) not shown saturated"},
		// the verdicts close the output
		{"verdict", "response time: B is faster"},
		{"throughput verdict", "throughput:    no change detected"},
	}
	for _, tt := range tests {
		if !strings.Contains(text, tt.want) {
			t.Errorf("%s: output lacks %q:\n%s", tt.name, tt.want, text)
		}
	}
	// The columns line up: every row's difference (never empty) ends where
	// the header's B−A does, and no line has trailing spaces.
	lines := strings.Split(text, "\n")
	var diffEnd int
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space in %q", l)
		}
		r := []rune(l)
		switch {
		case strings.HasPrefix(l, "metric"):
			before, _, _ := strings.Cut(l, "B−A")
			diffEnd = utf8.RuneCountInString(before + "B−A")
		case diffEnd > 0 && l == "":
			return
		case diffEnd > 0 && !strings.HasPrefix(l, "(*)"):
			if len(r) <= diffEnd || r[diffEnd-1] == ' ' || r[diffEnd] != ' ' {
				t.Errorf("row %q: difference does not end at column %d", l, diffEnd)
			}
		}
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFormatWriteError(t *testing.T) {
	t.Parallel()
	c := Compare(&Data{}, &Data{}, Options{})
	if err := c.Format(failWriter{}); err == nil {
		t.Fatal("no error from a failing writer")
	}
}

func TestNum(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"},            // zero is plain
		{1234.56, "1234.6"}, // large: one decimal
		{12.345, "12.35"},   // ordinary: two decimals
		{0.98765, "0.988"},  // small: three significant digits
		{-3.5, "-3.50"},     // negative keeps its sign
	}
	for _, tt := range tests {
		if got := num(tt.v); got != tt.want {
			t.Errorf("num(%g) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if signed(2) != "+2.00" || signed(-2) != "-2.00" {
		t.Errorf("signed: %q %q", signed(2), signed(-2))
	}
}
