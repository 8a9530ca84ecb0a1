// Package controller runs an experiment: it asks a testbed for testers,
// starts them one by one (DiPerF's ramp-up), admits each one that proves it
// holds the run's secret, sends it the test description, collects samples
// on-line into the run directory, notices testers that fail, stops and
// cleans up, and at the end writes every file of the run directory.
package controller

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// Defaults of the controller's own timing.
const (
	DefaultJoinTimeout = 30 * time.Second       // a tester must join this soon after launch
	DefaultBatch       = 500 * time.Millisecond // testers ship samples at least this often
	stopGrace          = 5 * time.Second        // after Stop, wait this long before killing
)

// Options configure one run.
type Options struct {
	Experiment  *experiment.Experiment
	Dir         string              // run directory (created)
	Testbed     testbed.Testbed     // nil: the experiment's provider
	Transport   transport.Transport // nil: TCP
	Listen      string              // controller address ("" = 127.0.0.1:0)
	Progress    io.Writer           // live progress (nil = none)
	JoinTimeout time.Duration       // 0 = DefaultJoinTimeout
}

// Outcome is how a run went.
type Outcome struct {
	Dir     string // the run directory
	Started int    // testers that ran their client loop
	Failed  int    // testers marked failed
	Samples uint64 // samples received
}

// Run runs the experiment to its end, or until ctx is cancelled (then it
// stops every tester and still writes what it collected).
func Run(ctx context.Context, o Options) (*Outcome, error) {
	c, err := newController(o)
	if err != nil {
		return nil, err
	}
	defer c.closeFiles()
	ln, err := c.o.Transport.Listen(c.o.Listen)
	if err != nil {
		return nil, fmt.Errorf("controller: listen on %s: %w", c.o.Listen, err)
	}
	c.addr = ln.Addr().String()
	c.events.Add("listening", -1, "", c.addr)
	if c.times, err = startTimeService(c.exp, c.addr); err != nil {
		ln.Close()
		return nil, err
	}
	defer c.times.stop()
	c.events.Add("time-server", -1, "", c.times.addr)
	var sessions sync.WaitGroup
	go c.acceptLoop(ln, &sessions)
	stopProgress := c.startProgress()
	c.schedule(ctx)
	c.waitAll(ctx)
	stopProgress()
	ln.Close()
	c.closeSessions()
	sessions.Wait()
	return c.finish()
}

type controller struct {
	o       Options
	exp     *experiment.Experiment
	secret  []byte
	addr    string
	spool   *rundir.SpoolWriter
	events  *rundir.EventLog
	stats   *liveStats
	mu      sync.Mutex
	slots   []*slot
	started time.Time
	t0      time.Time // synchronized start: when slot 0 starts (zero: not synchronized)
	times   *timeService
}

func newController(o Options) (*controller, error) {
	if o.Testbed == nil {
		o.Testbed = testbed.Local{}
	}
	if o.Transport == nil {
		o.Transport = transport.TCP{}
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.JoinTimeout == 0 {
		o.JoinTimeout = DefaultJoinTimeout
	}
	if err := rundir.Create(o.Dir); err != nil {
		return nil, err
	}
	c := &controller{o: o, exp: o.Experiment, secret: make([]byte, 32), stats: newLiveStats()}
	if _, err := rand.Read(c.secret); err != nil {
		return nil, err
	}
	if err := c.openFiles(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *controller) openFiles() error {
	y, err := c.exp.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.o.Dir, rundir.Experiment), y, 0o644); err != nil {
		return err
	}
	if c.spool, err = rundir.CreateSpool(filepath.Join(c.o.Dir, rundir.Spool)); err != nil {
		return err
	}
	c.events, err = rundir.CreateEventLog(c.o.Dir)
	return err
}

func (c *controller) closeFiles() {
	if c.spool != nil {
		c.spool.Close()
	}
	if c.events != nil {
		c.events.Close()
	}
}

func (c *controller) acceptLoop(ln net.Listener, wg *sync.WaitGroup) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				c.events.Add("accept-error", -1, "", err.Error())
			}
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.serve(conn)
		}()
	}
}
