package e2e

import (
	"regexp"
	"testing"
)

// cardTimeRE is a card's pair of times, each with its unit: "100 ms /
// 101 ms", "250 µs / 1.2 ms".
var cardTimeRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)? (ns|µs|ms|s) / [0-9]+(\.[0-9]+)? (ns|µs|ms|s)$`)

// dashCardTimes checks that the dashboard's response-time and clock cards,
// while testers run, write each time with its unit, scaled as the charts'
// legends scale it (µs, ms or s), not bare milliseconds.
func dashCardTimes(t *testing.T, s pageState) {
	t.Helper()
	if len(s.Times) != 2 {
		t.Fatalf("the cards' times: %q, want the response time's and the clock's", s.Times)
	}
	for i, name := range []string{"response time p50 / p99", "clock"} {
		if !cardTimeRE.MatchString(s.Times[i]) {
			t.Errorf("the %s card reads %q, want two times with their units (e.g. \"250 µs / 1.2 ms\")", name, s.Times[i])
		}
	}
}
