package controller

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
)

// prepare readies the testbed before the run directory's files are
// opened, so that a testbed that cannot run (e.g. a missing deploy file)
// leaves no run behind; it cleans up after itself when it fails.
func (c *controller) prepare(ctx context.Context) error {
	ready, err := c.o.Testbed.Prepare(ctx, testbed.Plan{Testers: c.exp.Schedule.Testers, Dir: c.o.Dir, Length: c.runLength()})
	if err != nil {
		c.cleanup()
		c.removeDir()
		return fmt.Errorf("preparing the testbed: %w", err)
	}
	c.ready = ready
	if err := c.selectHosts(ctx); err != nil {
		c.cleanup()
		c.removeDir()
		return err
	}
	return nil
}

// removeDir removes the run directory as makeDir made it, when
// nothing else was put there.
func (c *controller) removeDir() {
	_ = os.Remove(filepath.Join(c.o.Dir, rundir.LogDir))
	if c.madeDir {
		_ = os.Remove(c.o.Dir)
	}
}

// cleanup ends the run on the testbed: testers get cleanupGrace to exit
// after the controller hung up, then the testbed kills what is left.
func (c *controller) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupGrace)
	defer cancel()
	if err := c.o.Testbed.Cleanup(ctx); err != nil && c.events != nil {
		c.events.Add("testbed-cleanup", -1, "", err.Error())
	}
}

// runLength is how long the run is planned to take: the ramp-up, one
// tester's duration, and its last client's timeout.
func (c *controller) runLength() time.Duration {
	s := c.exp.Schedule
	ramp := time.Duration(max(s.Testers-1, 0)) * s.TesterStartInterval.D()
	return ramp + s.TesterDuration.D() + c.exp.Client.Timeout.D()
}
