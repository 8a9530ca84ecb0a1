package compare

import (
	"strings"
	"testing"
)

// --fail-if finds each regression it names, and only a significant one
// in the worse direction.
func TestRegressions(t *testing.T) {
	t.Parallel()
	both := []string{FailSlower, FailErrors}
	tests := []struct {
		name  string
		b     spec
		kinds []string
		want  []string // a phrase of each reason, in order
	}{
		{"same service", base, both, nil},
		{"slower", base.with(func(s *spec) { s.rtMs = 60 }), both, []string{"B is slower"}},
		{"slower, errors not asked", base.with(func(s *spec) { s.rtMs = 60; s.failures = 0.1 }), []string{FailSlower}, []string{"B is slower"}},
		{"less throughput", base.with(func(s *spec) { s.tput = 150 }), []string{FailSlower}, []string{"B has lower throughput"}},
		{"faster is no regression", base.with(func(s *spec) { s.rtMs = 40; s.tput = 250 }), both, nil},
		{"more errors", base.with(func(s *spec) { s.failures = 0.05 }), []string{FailErrors}, []string{"B has a higher error rate"}},
		{"fewer errors is no regression", base.with(func(s *spec) { s.failures = 0.001 }), both, nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Compare(synth(base, 100+uint64(i)), synth(tt.b, 200+uint64(i)), Options{Resamples: 400})
			got := c.Regressions(tt.kinds)
			if len(got) != len(tt.want) {
				t.Fatalf("regressions %q; want %d", got, len(tt.want))
			}
			for j, w := range tt.want {
				if !strings.Contains(got[j], w) {
					t.Errorf("reason %q; want %q", got[j], w)
				}
			}
		})
	}
}

// ParseFailIf reads one kind, both, and refuses others.
func TestParseFailIf(t *testing.T) {
	t.Parallel()
	if k, err := ParseFailIf("slower, errors"); err != nil || len(k) != 2 || k[0] != FailSlower || k[1] != FailErrors {
		t.Errorf("ParseFailIf = %q, %v", k, err)
	}
	for _, bad := range []string{"", "slow", "slower,", "errors;slower"} {
		if k, err := ParseFailIf(bad); err == nil {
			t.Errorf("ParseFailIf(%q) = %q, want an error", bad, k)
		}
	}
}
