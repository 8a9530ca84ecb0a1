package controller

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/threshold"
)

// abortRun is a controller as far as an abort sees it: started at a
// known instant, its progress and events written.
func abortRun(t *testing.T, started time.Time) (*controller, *bytes.Buffer) {
	t.Helper()
	ev, err := rundir.CreateEventLog(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	e := experiment.Default()
	var progress bytes.Buffer
	return &controller{exp: &e, events: ev, started: started, o: Options{Progress: &progress}}, &progress
}

// A threshold that stops the run is said to have failed since a time in
// the run, not since a Unix second.
func TestThresholdAbortNamesTheRunTime(t *testing.T) {
	started := time.Unix(1_764_200_000, 300_000_000)
	c, progress := abortRun(t, started)
	c.thresholdAbort([]threshold.Breach{{Name: "p50_ms < 1", Observed: 12.5, Since: 1_764_200_013}})
	const want = `threshold "p50_ms < 1" failed (observed 12.5) since 12.7 s into the run`
	for name, got := range map[string]string{"the error": c.abortErr.Error(), "the progress": progress.String()} {
		if !strings.Contains(got, want) || strings.Contains(got, "1764200013") {
			t.Errorf("%s says %q, want %q", name, got, want)
		}
	}
}

// A failure_policy abort says when in the run it came (on fake time).
func TestPolicyAbortNamesTheRunTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := abortRun(t, time.Now().Add(-90*time.Second))
		c.exp.FailurePolicy = experiment.PolicyAbort
		c.failed = 1
		c.slots = []*slot{{rec: &rundir.TesterRecord{FailureReason: "lost connection"}}}
		c.onFailure(c.slots[0])
		if c.abortErr == nil || !strings.HasPrefix(c.abortErr.Error(), "run aborted (failure_policy: abort): tester 0 (") ||
			!strings.Contains(c.abortErr.Error(), "lost connection (at 90 s into the run)") {
			t.Errorf("the abort says %v, want the tester, its reason and 90 s into the run", c.abortErr)
		}
	})
}
