package controller

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/rundir"
)

// TestProgressPastDuration checks the progress line of a run whose one
// tester (tester_duration 8s) started 3 s late and has a call in flight,
// which its duration does not cut, until 35 s: the line never reads more
// elapsed than planned ("[35s/8s]"); it says how far past the plan the
// run is and, once the tester is past its duration, that it waits for its
// call, which ends within client.timeout.
func TestProgressPastDuration(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := experiment.Default()
		e.Schedule.Testers = 1
		e.Schedule.TesterDuration = experiment.Duration(8 * time.Second)
		e.Client.Timeout = experiment.Duration(30 * time.Second)
		c := &controller{exp: &e, live: live.New(live.Options{}), started: time.Now()}
		c.slots = []*slot{{state: running, rec: &rundir.TesterRecord{StartNs: time.Now().Add(3 * time.Second).UnixNano()}}}
		var buf bytes.Buffer
		stop := printProgress(&buf, false, c.progressLine)
		time.Sleep(36 * time.Second)
		stop()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 7 {
			t.Fatalf("progress:\n%s\nwant 7 lines, one every 5 s", buf.String())
		}
		for i, want := range []string{"[5s/8s] testers 1/1 active", "[8s/8s +2s] testers 1/1 active",
			"[8s/8s +7s] finishing: 1 tester past its duration waits for its calls in flight (each ends within client.timeout 30s) | testers 1/1 active",
			"[8s/8s +27s] finishing: 1 tester past its duration"} {
			if k := []int{0, 1, 2, 6}[i]; !strings.HasPrefix(lines[k], want) {
				t.Errorf("line %d: %q, want it to start %q", k, lines[k], want)
			}
		}
	})
}

// TestProgressClockTesters checks the head's wording for several testers
// past their duration.
func TestProgressClockTesters(t *testing.T) {
	t.Parallel()
	got := progressClock(40*time.Second, 11*time.Second, 2, 10*time.Second)
	want := "[11s/11s +29s] finishing: 2 testers past their duration wait for their calls in flight (each ends within client.timeout 10s) |"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
