package netprobe

import (
	"fmt"
	"strings"
	"testing"
)

// A server's counters print as words, not as a Go struct, however they
// are formatted.
func TestStatsText(t *testing.T) {
	s := Stats{BandwidthServed: 3, LatencyServed: 5, Busy: 2, Refused: 1, OverBudget: 4, Cut: 6}
	want := "served 3 bandwidth and 5 latency tests; refused 2 busy, 1 unproved or malformed, 4 over budget; cut 6 short"
	for _, got := range []string{s.String(), fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s)} {
		if got != want || strings.ContainsAny(got, "{}") {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
