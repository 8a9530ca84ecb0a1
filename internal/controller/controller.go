// Package controller runs an experiment: it asks a testbed for testers,
// starts them one by one (DiPerF's ramp-up), admits each one that proves it
// holds the run's secret, sends it the test description, collects samples
// on-line into the run directory, notices testers that fail, stops and
// cleans up, and at the end writes every file of the run directory.
package controller

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/placement"
	"github.com/diperf/diperf/internal/preauth"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/search"
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
	Dir        string              // run directory (created; may exist empty)
	Testbed    testbed.Testbed     // nil: the experiment's provider (testbed.New)
	Transport  transport.Transport // nil: TCP
	Listen     string              // controller address ("" = 127.0.0.1:0)
	// Advertise is what testers are told to dial, HOST or HOST:PORT ("" =
	// the listen address; see advertise): the host also names the
	// controller's own time server, whose port is its own.
	Advertise   string
	Progress    io.Writer     // live progress (nil = none)
	JoinTimeout time.Duration // 0 = DefaultJoinTimeout
	// Secret is the run's shared secret, which every tester proves it
	// holds (nil: a random one; else at least 32 random bytes,
	// credential.CheckSecret). It never reaches the run directory, the
	// logs or a client. The run makes its own key to prove itself with.
	Secret []byte
	// Token and Key, when set, are the run's credential from a token file
	// and its controller key file (the join provider): the token must
	// admit the run (its name, not expired) and Key be the private half of
	// the key it names. Secret is then unused.
	Token *credential.Token
	Key   ed25519.PrivateKey
	// Path is how the testers reach the controller, chosen where the run
	// is made (testbed.Choose: their reach, the relay workers that accept
	// their connections in the controller's place, UDP samples); nil:
	// testbed.PathOf the experiment, without relays. RelayCommand starts
	// a relay worker (nil: this program's `relay` subcommand; package
	// relay).
	Path         *testbed.Path
	RelayCommand func() *exec.Cmd
	// Client overrides the experiment's client (nil: the experiment's).
	// Benchmarks use it for protocol.ClientNull, which the experiment file
	// does not offer.
	Client *protocol.ClientDesc
	// PreAuth bounds the connections accepted and not yet proved (zero:
	// what the open-file limit leaves beside OwnFiles; package preauth).
	PreAuth preauth.Limits
	// Live receives the run's per-second aggregates, tester states and
	// errors as they come (the dashboard and /metrics read it); nil: the
	// controller keeps its own for the progress line.
	Live *live.Run
	// Search, when set, makes the run a capacity search (package search,
	// docs/search.md): the testers are steered (TestDesc.Steered) from
	// step to step until the search ends; its answer is Outcome.Search
	// and the run directory's search.json and search.csv.
	Search *search.Config
}

// Outcome is how a run went.
type Outcome struct {
	Dir     string // the run directory
	Started int    // testers that ran their client loop
	Failed  int    // testers marked failed
	Samples uint64 // samples received
	// Search is the search's answer (Options.Search; nil without one).
	Search *search.Result
	// Analysis is what the run's analysis found and wrote: the summary,
	// the thresholds checked on it, the experiment's name (nil when the
	// run ended before its summary.json was written).
	Analysis *pipeline.Derived
}

// Run runs the experiment to its end, or until ctx is cancelled (then it
// stops every tester and still writes what it collected). It listens (and
// settles the advertised address) before it creates the run directory, so
// that a run that cannot start leaves no directory behind and the same
// --out works on a retry. The testbed is prepared before the first tester
// and cleaned up after the last one, whatever happened in between.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	c, err := newController(o)
	if err != nil {
		return nil, err
	}
	ln, err := c.o.Transport.Listen(c.o.Listen)
	if err != nil {
		return nil, errs.Usage(fmt.Errorf("controller: listen on %s: %w", c.o.Listen, err),
			"give --listen an address of this machine that is free (HOST:PORT, port 0 for any)")
	}
	defer ln.Close()
	if err := c.makeDir(); err != nil {
		return nil, err
	}
	if err := c.prepare(ctx); err != nil {
		return nil, err
	}
	if err := c.advertise(ln.Addr()); err != nil {
		c.cleanup()
		c.removeDir()
		return nil, errs.Usage(err, "")
	}
	defer c.closeFiles()
	err = c.openFiles()
	if err == nil {
		c.events.Add("testbed-ready", -1, "", strings.Join(c.ready.Hosts, " "))
		c.testbedNotes()
		c.recordSelection()
		c.events.Add("listening", -1, "", ln.Addr().String())
		c.events.Add("advertised", -1, "", c.addr+": "+c.advWhy)
		c.checkMesh(ctx)
		err = c.conduct(ctx, ln)
	}
	if err == nil {
		c.retrieve()
	}
	c.cleanup()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
	out, err := c.finish()
	c.endLive()
	return out, c.withAbort(err)
}

// conduct starts the time service, accepts testers on ln, runs the
// schedule until every tester has finished, and hangs up on them.
func (c *controller) conduct(ctx context.Context, ln net.Listener) error {
	defer holdHeapFloor()()
	var err error
	if c.times, err = c.startTimeService(ln.Addr()); err != nil {
		return err
	}
	defer c.times.stop()
	c.events.Add("time-server", -1, "", c.times.addr)
	if err := c.startUDP(ln.Addr()); err != nil {
		return err
	}
	defer c.stopUDP()
	stopGuard := c.newGuard()
	defer stopGuard()
	if err := c.watchThresholds(); err != nil {
		return err
	}
	c.watchSearch()
	stopTicks := c.tickLive()
	defer stopTicks()
	defer c.startMonitor()()
	stopProgress := c.startProgress()
	accept := func() { go c.acceptLoop(ln) }
	if c.path.Relays > 0 {
		pool, err := c.startRelays(ln)
		if err != nil {
			stopProgress()
			return err
		}
		defer pool.Close()
		accept = func() {}
	}
	stopSweeping := c.sweepWhileLaunching()
	c.schedule(ctx, accept)
	stopSweeping()
	c.waitAll(ctx)
	stopProgress()
	ln.Close()
	c.closeSessions()
	c.guard.pool.CloseAll() // those not yet proved: nothing is left for them
	c.sessions.Wait()
	return nil
}

type controller struct {
	client     protocol.ClientDesc // what testers run (unless Options.Client)
	o          Options
	exp        *experiment.Experiment
	cred       protocol.Controller // what it proves itself and checks testers with
	token      []byte              // the testers' token, as the testbed hands it over
	adv        advertised          // what testers are told to dial (Options.Advertise, parsed)
	addr       string              // the controller address testers are told
	advWhy     string              // why addr was chosen, for events.jsonl
	ready      testbed.Ready       // where the testbed starts testers
	path       testbed.Path        // how testers reach the controller (Options.Path)
	spool      *rundir.SpoolWriter
	events     *rundir.EventLog
	live       *live.Run     // per-second aggregates (Options.Live or its own)
	health     healthStore   // the testers' self-health (health.go)
	cad        cadence       // how often testers ship samples and either side must be heard
	gate       chan struct{} // per-tester goroutines queue here, not on mu (gate.go)
	mu         sync.Mutex
	slots      []*slot
	started    time.Time
	t0         time.Time // synchronized start: when slot 0 starts (zero: not synchronized)
	times      *timeService
	udp        *udpIngest         // the UDP sample socket (nil: samples over TCP)
	madeDir    bool               // makeDir created the run directory
	guard      *guard             // protects the controller from unproven connections
	selfCheck  string             // local address of checkAdvertised's dial, not a rejected tester
	sessions   sync.WaitGroup     // one per tester connection being served
	due        dueHeap            // slots by when they next need tending
	tending    []*slot            // the sweep's slots due (reused)
	lostOpen   map[*slot]struct{} // lost testers whose session goes on
	waiting    []*slot            // slots launched, in order; a prefix no longer waiting is dropped (waitingSlot)
	unfinished int                // slots neither done nor failed
	failed     int                // slots failed
	stopping   bool               // every tester was told to stop: failures no longer count
	aborted    bool               // the failure policy or a threshold stopped the run
	ended      bool               // every tester is finished: thresholds no longer stop the run
	abortErr   error              // why (Run returns it)

	// sharedWait are the slots whose handles are a testbed.SharedWait,
	// all watched by one goroutine (watchSharedExit).
	sharedWait []*slot

	awake *awakeClock // the time the controller was running, ticked by the sweeps (sweeper.go)

	steer *steering // a capacity search's loop (Options.Search; nil: none; search.go)

	sites siteMap           // the tester hosts' sites, for testers.csv (site.go)
	sel   *placement.Result // testbed.select's choice (nil: none; select.go)
}

// newController checks the options; it creates nothing. A bad testbed
// section, advertise address or secret is a usage error.
func newController(o Options) (*controller, error) {
	var cl protocol.ClientDesc
	if o.Client != nil {
		if err := o.Client.Validate(); err != nil {
			return nil, fmt.Errorf("controller: Options.Client: %w", err)
		}
	} else {
		var err error
		if cl, err = clientDesc(o.Experiment); err != nil {
			return nil, err
		}
	}
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
	if o.Live == nil {
		o.Live = live.New(live.Options{Name: o.Experiment.Name, Testers: o.Experiment.Schedule.Testers})
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
	c := &controller{o: o, exp: o.Experiment, adv: adv, live: o.Live, client: cl,
		cad: cadenceFor(o.Experiment.Schedule.Testers), gate: make(chan struct{}, lockGate),
		lostOpen: map[*slot]struct{}{}, path: testbed.PathOf(o.Experiment)}
	if o.Path != nil {
		c.path = *o.Path
	}
	if c.cred, c.token, err = runCredential(o, c.runSpan()); err != nil {
		return nil, err
	}
	if o.Search != nil {
		if c.steer, err = newSteering(o.Experiment, *o.Search); err != nil {
			return nil, err
		}
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
	if c.spool, err = c.openSpool(); err != nil {
		return err
	}
	if c.events, err = rundir.CreateEventLog(c.o.Dir); err == nil {
		c.events.Watch(func(e rundir.Event) {
			if e.Slot != nil {
				c.live.Event(e.Event, *e.Slot, e.ID, e.Detail, e.TimeNs)
			}
		})
	}
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

// testbedNotes records the hosts the testbed skipped, with their reasons
// (also on the progress output), and what it noted.
func (c *controller) testbedNotes() {
	hosts := make([]string, 0, len(c.ready.Skipped))
	for h := range c.ready.Skipped {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		c.events.Add("host-skipped", -1, "", h+": "+c.ready.Skipped[h])
		if c.o.Progress != nil {
			fmt.Fprintf(c.o.Progress, "testbed: skipped %s: %s\n", h, c.ready.Skipped[h])
		}
	}
	for _, n := range c.ready.Notes {
		c.events.Add("testbed-note", -1, "", n)
	}
	if c.ready.Shared != "" {
		c.events.Add("testers-shared", -1, "", c.ready.Shared)
		if c.o.Progress != nil {
			fmt.Fprintf(c.o.Progress, "testbed: %s\n", c.ready.Shared)
		}
	}
}
