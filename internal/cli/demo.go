package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/controller"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/target"
)

// Demo defaults: about 40 s, load climbing past saturation (8 workers
// saturate at 8 calls in flight; 20 back-to-back testers reach 20), holding,
// and falling again — DiPerF's trapezoid. The service time is long next to
// the cost of starting the client process (about 7-10 ms here), which counts
// as load too and moves the knee up by that ratio: see
// docs/design/001-foundation.md.
const (
	demoTesters       = 20
	demoStartInterval = 750 * time.Millisecond
	demoDuration      = 27 * time.Second
	demoServiceTime   = 400 * time.Millisecond
)

type demoOptions struct {
	testers        int
	startInterval  time.Duration
	duration       time.Duration
	clientInterval time.Duration
	out            string
	target         target.Config
	clockSkew      time.Duration
	clockDriftPPM  float64
	syncStart      bool
	client         string // "exec" (diperf call http, a process per call) or "http" (the built-in client)
	ui             *uiFlags
}

func demoCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "demo", "[flags]")
	o := demoOptions{target: target.DefaultConfig()}
	o.target.ServiceTime = demoServiceTime
	fs.IntVar(&o.testers, "testers", demoTesters, "testers to start")
	fs.DurationVar(&o.startInterval, "tester-start-interval", demoStartInterval, "one more tester every interval (ramp-up)")
	fs.DurationVar(&o.duration, "tester-duration", demoDuration, "how long each tester runs")
	fs.DurationVar(&o.clientInterval, "client-interval", 0, "time between two calls of a tester (0 = back-to-back)")
	fs.IntVar(&o.target.Workers, "workers", o.target.Workers, "the target's service slots C")
	fs.DurationVar(&o.target.ServiceTime, "service-time", o.target.ServiceTime, "the target's service time S")
	fs.StringVar(&o.target.Dist, "service-dist", o.target.Dist, "service time distribution: fixed or exp")
	fs.DurationVar(&o.target.PauseAt, "pause-at", 0, "stall the target this long after it starts ...")
	fs.DurationVar(&o.target.PauseFor, "pause-for", 0, "... for this long (calls hold their slot until the pause is over)")
	fs.StringVar(&o.out, "out", "", "run directory (default runs/demo-<UTC time>)")
	fs.DurationVar(&o.clockSkew, "clock-skew", 0, "test the time service: give each tester a clock offset drawn from ±this")
	fs.Float64Var(&o.clockDriftPPM, "clock-drift-ppm", 0, "test the time service: give each tester a clock drift drawn from ±this (ppm)")
	fs.BoolVar(&o.syncStart, "synchronized-start", false, "launch every tester first and start each at a global time")
	o.ui = addUIFlags(fs)
	fs.StringVar(&o.client, "client", "exec", "the client: exec (a process per call, as DiPerF ran) or http (the built-in HTTP client)")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if o.client != "exec" && o.client != "http" {
		return errs.Usagef("--client %q: want exec or http", o.client)
	}
	return runDemo(ctx, e, o)
}

func runDemo(ctx context.Context, e *env, o demoOptions) error {
	srv, err := target.New(o.target)
	if err != nil {
		return errs.Usage(err, "")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	tctx, stopTarget := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- target.Serve(tctx, ln, srv) }()
	defer func() { stopTarget(); <-served }()
	host, err := serveHostFigures()
	if err != nil {
		return err
	}
	defer host.Close()
	exp, err := demoExperiment(o, "http://"+ln.Addr().String()+"/", "http://"+host.Addr+"/metrics")
	if err != nil {
		return err
	}
	c := o.target
	fmt.Fprintf(e.stderr, "diperf demo: target on %s: %d workers x %v = capacity %.1f calls/s, saturating at a load of %d\n",
		ln.Addr(), c.Workers, c.ServiceTime, float64(c.Workers)/c.ServiceTime.Seconds(), c.Workers)
	if o.out == "" {
		o.out = defaultRunDir(exp.Name)
	}
	runErr := runExperiment(ctx, e, exp, controller.Options{Dir: o.out}, o.ui, "")
	if err := writeServerView(o.out, srv); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

func demoExperiment(o demoOptions, url, hostURL string) (*experiment.Experiment, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	exp := experiment.Default()
	exp.Name = "demo"
	exp.Target = url
	if o.client == "http" {
		exp.Client.HTTP = &experiment.HTTPClient{URL: "$DIPERF_TARGET"}
	} else {
		exp.Client.Exec = []string{self, "call", "http", "$DIPERF_TARGET"}
	}
	exp.Client.Timeout = experiment.Duration(10 * time.Second)
	exp.Schedule.Testers = o.testers
	exp.Schedule.TesterStartInterval = experiment.Duration(o.startInterval)
	exp.Schedule.TesterDuration = experiment.Duration(o.duration)
	exp.Schedule.ClientInterval = experiment.Duration(o.clientInterval)
	exp.Schedule.SynchronizedStart = o.syncStart
	exp.Testbed.ClockSkew = experiment.Duration(o.clockSkew)
	exp.Testbed.ClockDriftPPM = o.clockDriftPPM
	// The server view: the target's own counters, scraped every quantum,
	// so that `diperf validate RUN --counter diperf_target_served_total`
	// checks the client view against them, and this host's CPU, memory,
	// network and processes (what `diperf monitor` serves), which the
	// report draws against the client view.
	exp.Monitor = []experiment.MonitorEndpoint{{Name: "target", URL: strings.TrimSuffix(url, "/") + "/metrics"}}
	if hostURL != "" {
		exp.Monitor = append(exp.Monitor, experiment.MonitorEndpoint{Name: "host", URL: hostURL})
	}
	if p := exp.Validate(); len(p) > 0 {
		return nil, errs.Usage(&experiment.Error{Problems: p}, "check the demo flags")
	}
	return &exp, nil
}

// hostFigures serves this host's figures on a loopback port for the
// demo's server view.
type hostFigures struct {
	Addr string
	srv  *http.Server
	done chan struct{}
}

func serveHostFigures() (*hostFigures, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv, err := hostServer("/proc")
	if err != nil {
		ln.Close()
		return nil, err
	}
	h := &hostFigures{Addr: ln.Addr().String(), srv: srv, done: make(chan struct{})}
	go func() { defer close(h.done); _ = srv.Serve(ln) }()
	return h, nil
}

// Close stops serving.
func (h *hostFigures) Close() { _ = h.srv.Close(); <-h.done }

// writeServerView saves the target's own served-per-second counts.
func writeServerView(dir string, srv *target.Server) error {
	if _, err := os.Stat(dir); err != nil {
		return nil // the run never got as far as its directory
	}
	return rundir.WriteFile(dir, rundir.Server, srv.WriteServedCSV)
}
