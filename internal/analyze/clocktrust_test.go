package analyze

import (
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestSummaryClockTrust: the summary counts the testers whose syncs were
// not authenticated (those that synced at all), the replies and syncs
// refused, and lists the suspect testers in index order with their
// reasons; the text summary says so.
func TestSummaryClockTrust(t *testing.T) {
	t.Parallel()
	ts := []Tester{tester(2, 0, 2), tester(0, 0, 2), tester(1, 0, 2), tester(3, 0, 2)}
	for i := range ts[:3] {
		ts[i].Syncs = []TesterSync{{T: at(0)}}
	}
	ts[0].ClockSuspect, ts[0].ClockUnauth, ts[0].ClockSyncsRefused = "probes disagree", true, 2
	ts[1].ClockSuspect, ts[1].ClockRefused = "sync 2 disagrees", 5
	ts[3].ClockUnauth = true // never synced: not counted
	in := &Input{Quantum: time.Second, Calls: []sample.Call{call(0, 0, 0.5, sample.OK)}, Testers: ts}
	r, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Summary.Clock
	if c.Unauthenticated != 1 || c.RefusedReplies != 5 || c.RefusedSyncs != 2 || len(c.Suspect) != 2 ||
		c.Suspect[0] != (SuspectClock{Index: 0, ID: "h:a", Reason: "sync 2 disagrees"}) || c.Suspect[1].Index != 2 {
		t.Fatalf("clock summary %+v", c)
	}
	want := "1 testers' syncs not authenticated; 5 time replies refused (forged or altered on the path); " +
		"clock suspect: tester 0, 2 (syncs disagree beyond their bounds; 2 syncs refused)"
	if got := clockLine(&c); !strings.HasSuffix(got, want) {
		t.Errorf("clock line %q, want it to end with %q", got, want)
	}
}
