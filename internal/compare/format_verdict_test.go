package compare

import (
	"strings"
	"testing"
)

// TestFormatSaysEachRunsVerdict: a run the testers limited is not starred
// as merely "did not saturate": the footnote gives each run's verdict in
// its summary's words.
func TestFormatSaysEachRunsVerdict(t *testing.T) {
	c := &Comparison{
		A:       Run{Name: "a", Saturation: "saturated at load 8.0, throughput 20.0 calls/s"},
		B:       Run{Name: "b", Saturation: "limited by the testers (CPU quota throttled 100% (6 of 6 testers))"},
		Metrics: []Metric{{Name: SaturationTput, Unit: unitCallsS, A: 20, B: 3, Saturated: &Sides{A: true, B: false}}},
	}
	var b strings.Builder
	if err := c.Format(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(*) A: saturated at load 8.0", "(*) B: limited by the testers (CPU quota"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
