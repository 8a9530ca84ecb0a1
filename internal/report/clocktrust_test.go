package report

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// TestClockFactNamesSuspectTesters: the report's clock row says which
// testers' clocks are suspect and what was refused; a run whose syncs
// were all authenticated and agree says nothing more than its figures.
func TestClockFactNamesSuspectTesters(t *testing.T) {
	t.Parallel()
	c := analyze.ClockSummary{MaxAbsOffsetMs: 1, RefusedReplies: 4, Suspect: []analyze.SuspectClock{{Index: 3, Reason: "x"}}}
	if got := clockFact(c); !strings.Contains(got, "4 time replies refused") || !strings.Contains(got, "clock suspect: tester 3") {
		t.Errorf("clock fact %q: want the refused replies and tester 3 named", got)
	}
	if got := clockFact(analyze.ClockSummary{MaxAbsOffsetMs: 1}); strings.Contains(got, "suspect") || strings.Contains(got, "refused") {
		t.Errorf("clock fact %q of a clean run names trouble", got)
	}
}
