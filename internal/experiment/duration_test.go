package experiment

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestDurationUnmarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		err  string // "" for success
	}{
		{"1.5s", 1500 * time.Millisecond, ""},            // Go duration string
		{"250ms", 250 * time.Millisecond, ""},            // milliseconds
		{"5m", 5 * time.Minute, ""},                      // minutes
		{"2", 2 * time.Second, ""},                       // bare integer: seconds
		{"0.5", 500 * time.Millisecond, ""},              // bare float: seconds
		{"0", 0, ""},                                     // zero
		{"-3", -3 * time.Second, ""},                     // negative parses; Validate judges it
		{`"7"`, 0, `invalid duration "7"`},               // a quoted number is a string without a unit
		{"3 parsecs", 0, `invalid duration "3 parsecs"`}, // nonsense
		{".inf", 0, `invalid duration ".inf"`},           // infinity
		{"1e300", 0, `invalid duration "1e300"`},         // overflows
		{"[1s]", 0, "want a duration, got a list"},       // not a scalar
	}
	for _, tt := range tests {
		var d Duration
		err := yaml.Unmarshal([]byte(tt.in), &d)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case tt.err == "" && d.D() != tt.want:
			t.Errorf("%s: got %v, want %v", tt.in, d, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: got error %v, want %q", tt.in, err, tt.err)
		}
	}
}

func TestDurationMarshal(t *testing.T) {
	t.Parallel()
	out, err := yaml.Marshal(struct{ D Duration }{Duration(90 * time.Second)})
	if err != nil || string(out) != "d: 1m30s\n" {
		t.Errorf("got %q, %v", out, err)
	}
}
