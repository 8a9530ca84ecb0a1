// Package sensord is the sensor daemon (`diperf sensor --directory URL`):
// it serves its peers' tests within its budget, registers with the
// directory and renews the lease, and runs the measurement loop of
// internal/sensor with the directory as its list of peers and store of
// results and forecasts, and netprobe as its tests.
package sensord

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/human"
	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/internal/sensor"
)

// Options are a sensor daemon's settings, checked by the caller.
type Options struct {
	// Directory is the directory's client; Run makes it sign with the
	// sensor's key, read from KeyFile (made there when missing).
	Directory *directory.Client
	KeyFile   string
	// Token is the mesh's token: the sensors' among themselves.
	Token []byte
	// Listen is where the test server listens; Advertise is the HOST:PORT
	// its peers dial ("": the listen address).
	Listen, Advertise string
	// Name, Site and Groups are the sensor as registered; Version its
	// diperf version.
	Name, Site string
	Groups     []string
	Version    string
	// Period and TestTime are the loop's: one test of TestTime a period.
	Period, TestTime time.Duration
	// Budget is the share of time spent testing (0: budgetShares ×
	// TestTime / Period); BytesPerHour the bytes a hour (0: no cap).
	Budget, BytesPerHour float64
	// Stdout hears the summary at the end, Stderr the log.
	Stdout, Stderr io.Writer
}

// Run serves tests, registers and renews, and runs the measurement loop
// (and the on-demand tests asked of it) until ctx ends, then deregisters
// and says what it did and spent.
func Run(ctx context.Context, o Options) error {
	d, err := o.listen()
	if err != nil {
		return err
	}
	defer d.ln.Close()
	if err := o.signWith(); err != nil {
		return err
	}
	self := o.self(d.ln.Addr().String())
	stopRenew, err := keepRegistered(ctx, o.Stderr, o.Directory, self)
	if err != nil {
		return err
	}
	defer deregister(o.Stderr, o.Directory, self.Name) // after the renewals stopped
	defer stopRenew()
	fmt.Fprintf(o.Stderr, "diperf sensor %s (site %s, groups %s): tests at %s, one %v test per %v\n",
		self.Name, self.Site, strings.Join(self.Groups, ","), self.Addr, o.TestTime, o.Period)
	st := d.loop(ctx, self)
	fmt.Fprintf(o.Stdout, "tests %d, busy %d, missed %d, lists %d; %s; %s; %s; %d on-demand, %d refused over budget\n",
		st.Tests, st.Busy, st.Missed, st.Lists, spentText(st), d.srv.Stats(), heldBack(st), st.OnDemand, st.Refused)
	return nil
}

// daemon is a sensor's test server, listening, and its slot and budget.
type daemon struct {
	o      *Options
	ln     net.Listener
	srv    *netprobe.Server
	slot   *netprobe.Slot
	served *sensor.Served
}

// listen starts the test server, its tests charged to the budget.
func (o *Options) listen() (*daemon, error) {
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, errs.Usage(fmt.Errorf("sensor: listen on %s: %w", o.Listen, err), "give --listen a free HOST:PORT")
	}
	d := &daemon{o: o, ln: ln, slot: &netprobe.Slot{}}
	if d.srv, err = netprobe.NewServer(o.Token, d.slot); err != nil {
		ln.Close()
		return nil, err
	}
	d.served = o.serveBudget(d.srv, d.slot)
	go func() { _ = d.srv.Serve(ln) }()
	return d, nil
}

// loop runs the measurement loop, and the poll for on-demand tests that
// feeds it, until ctx ends; the on-demand tests left are failed.
func (d *daemon) loop(ctx context.Context, self sensor.Peer) sensor.Stats {
	dir := &dirAdapter{c: d.o.Directory}
	od := newOnDemand(dir, self.Name, d.o.Stderr)
	pctx, stop := context.WithCancel(ctx)
	polled := make(chan struct{})
	go func() { defer close(polled); od.poll(pctx) }()
	st := sensor.Run(ctx, sensor.Config{Self: self, Period: d.o.Period, TestTime: d.o.TestTime,
		Budget: d.o.effectiveBudget(), Served: d.served, OnDemand: od.reqs,
		Log: func(s string) { fmt.Fprintln(d.o.Stderr, "diperf sensor:", s) },
		OnList: func(st sensor.Stats) {
			fmt.Fprintf(d.o.Stderr, "diperf sensor: list %d done: %d tests, %d busy, %d missed; %s\n",
				st.Lists, st.Tests, st.Busy, st.Missed, spentText(st))
		}},
		dir, &probeAdapter{c: &netprobe.Client{Token: d.o.Token}, slot: d.slot})
	stop()
	<-polled
	od.drain()
	return st
}

// self is this sensor as its peers see it; its site is a group "site:NAME".
func (o *Options) self(listened string) sensor.Peer {
	addr := o.Advertise
	if addr == "" {
		addr = listened
	}
	return sensor.Peer{Name: o.Name, Addr: addr, Site: o.Site, Groups: o.Groups, Version: o.Version}
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

// signWith reads the sensor's key (made when missing, and the user
// told) and makes the directory client sign with it.
func (o *Options) signWith() error {
	key, made, err := directory.LoadOrMakeKey(o.KeyFile)
	if err != nil {
		return errs.Usage(fmt.Errorf("--key-file: %w", err), "give --key-file the sensor's own key file, private to its owner (chmod 600), or a path to make it at")
	}
	if made {
		fmt.Fprintf(o.Stderr, "diperf sensor: made a new key in %s; the directory binds the name %s to it: keep it with this sensor\n", o.KeyFile, o.Name)
	}
	o.Directory.SignWith(key)
	return nil
}
