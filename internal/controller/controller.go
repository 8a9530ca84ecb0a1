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
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/errs"
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
	cleanupGrace       = 5 * time.Second        // after hanging up, testers have this long to exit
)

// Options configure one run.
type Options struct {
	Experiment *experiment.Experiment
	Dir        string              // run directory (created)
	Testbed    testbed.Testbed     // nil: the experiment's provider (testbed.New)
	Transport  transport.Transport // nil: TCP
	Listen     string              // controller address ("" = 127.0.0.1:0)
	// Advertise is what testers are told to dial, HOST or HOST:PORT ("" =
	// the listen address; see advertise): the host also names the
	// controller's own time server, whose port is its own.
	Advertise   string
	Progress    io.Writer     // live progress (nil = none)
	JoinTimeout time.Duration // 0 = DefaultJoinTimeout
}

// Outcome is how a run went.
type Outcome struct {
	Dir     string // the run directory
	Started int    // testers that ran their client loop
	Failed  int    // testers marked failed
	Samples uint64 // samples received
}

// Run runs the experiment to its end, or until ctx is cancelled (then it
// stops every tester and still writes what it collected). The testbed is
// prepared before the first tester and cleaned up after the last one,
// whatever happened in between.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	c, err := newController(o)
	if err != nil {
		return nil, err
	}
	if err := c.prepare(ctx); err != nil {
		return nil, err
	}
	defer c.closeFiles()
	err = c.openFiles()
	if err == nil {
		c.events.Add("testbed-ready", -1, "", strings.Join(c.ready.Hosts, " "))
		err = c.conduct(ctx)
	}
	c.cleanup()
	if err != nil {
		return nil, err
	}
	return c.finish()
}

// conduct listens for testers, starts the time service, runs the schedule
// until every tester has finished, and hangs up on them.
func (c *controller) conduct(ctx context.Context) error {
	ln, err := c.o.Transport.Listen(c.o.Listen)
	if err != nil {
		return fmt.Errorf("controller: listen on %s: %w", c.o.Listen, err)
	}
	c.events.Add("listening", -1, "", ln.Addr().String())
	if err := c.advertise(ln.Addr()); err != nil {
		ln.Close()
		return err
	}
	if c.times, err = c.startTimeService(ln.Addr()); err != nil {
		ln.Close()
		return err
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
	return nil
}

type controller struct {
	o       Options
	exp     *experiment.Experiment
	secret  []byte
	adv     advertised    // what testers are told to dial (Options.Advertise, parsed)
	addr    string        // the controller address testers are told
	ready   testbed.Ready // where the testbed starts testers
	spool   *rundir.SpoolWriter
	events  *rundir.EventLog
	stats   *liveStats
	mu      sync.Mutex
	slots   []*slot
	started time.Time
	t0      time.Time // synchronized start: when slot 0 starts (zero: not synchronized)
	times   *timeService
	madeDir bool // newController created the run directory
}

// newController checks the options and creates the run directory; a bad
// testbed section or advertise address is a usage error and creates
// nothing.
func newController(o Options) (*controller, error) {
	if o.Testbed == nil {
		tb, err := testbed.New(o.Experiment.Testbed)
		if err != nil {
			return nil, err
		}
		o.Testbed = tb
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
	adv, err := parseAdvertise(o.Advertise)
	if err != nil {
		return nil, errs.Usage(err, "give --advertise HOST or HOST:PORT, an address of this machine the testers can reach")
	}
	_, statErr := os.Stat(o.Dir)
	if err := rundir.Create(o.Dir); err != nil {
		return nil, err
	}
	c := &controller{o: o, exp: o.Experiment, adv: adv, secret: make([]byte, 32), stats: newLiveStats(),
		madeDir: errors.Is(statErr, os.ErrNotExist)}
	if _, err := rand.Read(c.secret); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *controller) openFiles() error {
	y, err := c.exp.Marshal()
	if err != nil {
		return err
	}
	if err := rundir.WriteBytes(c.o.Dir, rundir.Experiment, y); err != nil {
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
