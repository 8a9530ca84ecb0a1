package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/diperf/diperf/internal/clock"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/human"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/internal/sensor"
)

// sensorFlags are the flags of the sensor daemon.
type sensorFlags struct {
	dir, tokenFile, listen, advertise, name, site, groups string
	caFile, keyFile                                       string
	period, testTime                                      time.Duration
	budget, bytesPerHour                                  float64
}

func (f *sensorFlags) add(fs *flag.FlagSet) {
	host, _ := os.Hostname()
	fs.StringVar(&f.dir, "directory", "", "the directory's URL (http[s]://HOST:PORT)")
	fs.StringVar(&f.tokenFile, "token-file", defaultMeshToken(), tokenFileUsage+": the directory's, and the sensors' among themselves")
	fs.StringVar(&f.caFile, "ca-file", "", caFileUsage)
	fs.StringVar(&f.keyFile, "key-file", "", keyFileUsage)
	fs.StringVar(&f.listen, "listen", ":7655", "where this sensor's test server listens")
	fs.StringVar(&f.advertise, "advertise", "", "HOST:PORT its peers dial (default: the listen address)")
	fs.StringVar(&f.name, "name", host, "its registered host name")
	fs.StringVar(&f.site, "site", "default", "its site: sensors of one site test each other (the local group)")
	fs.StringVar(&f.groups, "groups", sensor.GroupLocal, "its groups: local, and global for a site's promoted sensors")
	fs.DurationVar(&f.period, "period", sensor.DefaultPeriod, "one test per period at most")
	fs.DurationVar(&f.testTime, "test-time", sensor.DefaultTestTime, "each test's length")
	fs.Float64Var(&f.budget, "budget", 0, "the share of time spent testing, its own tests and those it serves, at most (default: 3 × test-time / period)")
	fs.Float64Var(&f.bytesPerHour, "bytes-per-hour", 0, "bytes its tests may send an hour (0: no cap)")
}

// sensorDaemon is `diperf sensor --directory URL ...`: it serves tests,
// registers and renews, and runs the measurement loop until interrupted,
// then says what it did and spent.
func sensorDaemon(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "sensor", "--directory URL [--token-file F] [--listen ADDR --groups local[,global] --period D --test-time D]")
	var f sensorFlags
	f.add(fs)
	if err := fs.Parse(args); err != nil {
		return errs.Usage(err, "")
	}
	if f.dir == "" {
		return errs.Usagef("diperf sensor needs --directory")
	}
	if f.tokenFile == "" {
		return errs.Usagef("diperf sensor needs --token-file (no default: neither $DIPERF_TOKEN_FILE nor a config directory)")
	}
	if err := f.check(); err != nil {
		return err
	}
	token, err := readPrivateSecret("--token-file", f.tokenFile)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return errs.Usage(fmt.Errorf("sensor: listen on %s: %w", f.listen, err), "give --listen a free HOST:PORT")
	}
	defer ln.Close()
	slot := &netprobe.Slot{}
	srv, err := netprobe.NewServer(token, slot)
	if err != nil {
		return err
	}
	served := f.serveBudget(srv, slot, e.stderr)
	go func() { _ = srv.Serve(ln) }()
	dc, err := directoryClient(f.dir, token, f.caFile)
	if err != nil {
		return err
	}
	if err := f.signWith(e, dc); err != nil {
		return err
	}
	self := f.self(ln.Addr().String())
	stopRenew, err := keepRegistered(ctx, e, dc, self)
	if err != nil {
		return err
	}
	defer deregister(e, dc, self.Name) // after the renewals stopped
	defer stopRenew()
	fmt.Fprintf(e.stderr, "diperf sensor %s (site %s, groups %s): tests at %s, one %v test per %v\n",
		self.Name, self.Site, strings.Join(self.Groups, ","), self.Addr, f.testTime, f.period)
	st := sensor.Run(ctx, sensor.Config{Self: self, Period: f.period, TestTime: f.testTime,
		Budget: f.effectiveBudget(),
		Log:    func(s string) { fmt.Fprintln(e.stderr, "diperf sensor:", s) },
		OnList: func(st sensor.Stats) {
			fmt.Fprintf(e.stderr, "diperf sensor: list %d done: %d tests, %d busy, %d missed; %s\n",
				st.Lists, st.Tests, st.Busy, st.Missed, spentText(st))
		},
		Served: served},
		&dirAdapter{c: dc}, &probeAdapter{c: &netprobe.Client{Token: token}, slot: slot})
	srvSt := srv.Stats()
	fmt.Fprintf(e.stdout, "tests %d, busy %d, missed %d, lists %d; %s; %s; %s\n",
		st.Tests, st.Busy, st.Missed, st.Lists, spentText(st), srvSt, heldBack(st))
	return nil
}

// self is this sensor as its peers see it; its site is a group "site:NAME".
func (f *sensorFlags) self(listened string) sensor.Peer {
	addr := f.advertise
	if addr == "" {
		addr = listened
	}
	groups := strings.Split(f.groups, ",")
	return sensor.Peer{Name: f.name, Addr: addr, Site: f.site, Groups: groups, Version: Version}
}

// keepRegistered registers self and renews its lease until stop, again
// from the start when the directory forgot it (a restart on a new file).
func keepRegistered(ctx context.Context, e *env, dc *directory.Client, self sensor.Peer) (stop func(), err error) {
	reg := directory.Registration{Name: self.Name, Address: self.Addr, Version: self.Version,
		Groups: append(append([]string{}, self.Groups...), netmap.SitePrefix+self.Site), Capabilities: []string{"bandwidth", "latency"}}
	lease, err := registerFirst(ctx, e, dc, reg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			wait := time.Duration(max(lease.RenewAfterS, 1) * float64(time.Second))
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			l, err := dc.Renew(ctx, self.Name)
			if errors.Is(err, directory.ErrNotRegistered) {
				l, err = dc.Register(ctx, reg)
			}
			if err != nil {
				fmt.Fprintf(e.stderr, "diperf sensor: renewing: %v\n", err)
				continue
			}
			lease = l
		}
	}()
	return func() { cancel(); <-done }, nil
}

// registerRetry is how often a sensor started before its directory tries
// to register again (a variable for the tests).
var registerRetry = 2 * time.Second

// registerFirst registers, trying again every registerRetry while the
// directory does not answer (a sensor may start before it); a refusal
// (a wrong token, a bad registration) ends it at once.
func registerFirst(ctx context.Context, e *env, dc *directory.Client, reg directory.Registration) (directory.Lease, error) {
	for said := false; ; said = true {
		lease, err := dc.Register(ctx, reg)
		var api *directory.APIError
		switch {
		case err == nil:
			if said {
				fmt.Fprintln(e.stderr, "diperf sensor: registered")
			}
			return lease, nil
		case errors.As(err, &api) && api.Status/100 == 4 && api.Status != http.StatusTooManyRequests:
			// a 429 (too many new names from this address for now) passes;
			// every other refusal lasts
			return lease, fmt.Errorf("sensor: registering with the directory: %w", err)
		case !said:
			fmt.Fprintf(e.stderr, "diperf sensor: registering with the directory: %v; trying again every %v\n", err, registerRetry)
		}
		if !clock.Sleep(ctx, registerRetry) {
			return lease, fmt.Errorf("sensor: never registered with the directory: %w", err)
		}
	}
}

// check refuses flags that make no schedule.
func (f *sensorFlags) check() error {
	switch {
	case f.period <= 0:
		return errs.Usagef("--period must be above 0, got %v", f.period)
	case f.testTime <= 0 || f.testTime > f.period:
		return errs.Usagef("--test-time must be above 0 and at most --period (%v), got %v", f.period, f.testTime)
	case f.testTime > netprobe.MaxTestTime:
		return errs.Usagef("--test-time must be at most %v, the longest test a sensor serves, got %v", netprobe.MaxTestTime, f.testTime)
	case f.budget < 0 || f.budget > 1:
		return errs.Usagef("--budget is a share of the time, from 0 (the default, 3 × test-time / period) to 1, got %v", f.budget)
	case !(f.bytesPerHour >= 0 && f.bytesPerHour <= sensor.MaxBytesPerHour): // NaN, Inf too
		return errs.Usagef("--bytes-per-hour must be 0 (no cap) to %s, got %s", human.Number(sensor.MaxBytesPerHour, 6), human.Number(f.bytesPerHour, 6))
	case !(f.budget >= 0): // NaN, which passes the comparisons above
		return errs.Usagef("--budget is a share of the time, from 0 (the default, 3 × test-time / period) to 1, got %v", f.budget)
	case f.name == "":
		return errs.Usagef("--name must not be empty")
	}
	for _, g := range strings.Split(f.groups, ",") {
		if g == "" || strings.ContainsAny(g, " \t:") {
			return errs.Usagef("--groups %q: want names separated by commas (local, global), none empty, without spaces or ':'", f.groups)
		}
	}
	return nil
}

// heldBack says what the loop did not test as planned: peers that did not
// answer, tests held back (a peer backed off, the byte budget spent),
// tests stopped at the byte budget.
func heldBack(st sensor.Stats) string {
	return fmt.Sprintf("%d missed as the peer did not answer, %d held back, %d stopped at the byte budget",
		st.Unreachable, st.HeldBack, st.Capped)
}

// spentText is what the sensor's own tests spent: the share of the time
// and the bytes an hour.
func spentText(st sensor.Stats) string {
	return fmt.Sprintf("spent %.2f%% of the time testing, %s an hour", 100*st.Fraction, human.Bytes(st.BytesPerHour))
}
