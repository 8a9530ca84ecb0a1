package controller

import (
	"context"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
)

// TestScheduleAcceptsOnceSlotsExist checks that testers' connections are
// taken only once the slots they bind to exist: with a batch start (join,
// slurm), every slot is made first. Engines start testers before their
// controller; those wait in the listen backlog and are accepted first
// thing, so an accept before the slots would refuse them ("all 0 are
// taken") and leave the run waiting for testers that gave up.
func TestScheduleAcceptsOnceSlotsExist(t *testing.T) {
	t.Parallel()
	const testers = 3
	c, err := newController(Options{Experiment: testExperiment(t, testers, time.Second), Secret: []byte("q8Lx+/0m1Jt3fC5yQ2n7R4s6U9w0zA8bD1eF3gH5iJ4=")})
	if err != nil {
		t.Fatal(err)
	}
	if c.events, err = rundir.CreateEventLog(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	join := testbed.NewJoin(experiment.Testbed{})
	t.Cleanup(func() { _ = join.Cleanup(context.Background()) }) // ends the handles' waits
	c.o.Testbed = join
	accepted, slotsThen := 0, -1
	c.schedule(t.Context(), func() {
		accepted++
		c.mu.Lock()
		slotsThen = len(c.slots)
		c.mu.Unlock()
	})
	if accepted != 1 || slotsThen != testers {
		t.Errorf("accepting started %d times, with %d slots made; want once, with all %d", accepted, slotsThen, testers)
	}
}
