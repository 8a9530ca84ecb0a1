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
	// Directory is the directory's client, signing with the sensor's key.
	Directory *directory.Client
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
// until ctx ends, then deregisters and says what it did and spent.
func Run(ctx context.Context, o Options) error {
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return errs.Usage(fmt.Errorf("sensor: listen on %s: %w", o.Listen, err), "give --listen a free HOST:PORT")
	}
	defer ln.Close()
	slot := &netprobe.Slot{}
	srv, err := netprobe.NewServer(o.Token, slot)
	if err != nil {
		return err
	}
	served := o.serveBudget(srv, slot)
	go func() { _ = srv.Serve(ln) }()
	self := o.self(ln.Addr().String())
	stopRenew, err := keepRegistered(ctx, o.Stderr, o.Directory, self)
	if err != nil {
		return err
	}
	defer deregister(o.Stderr, o.Directory, self.Name) // after the renewals stopped
	defer stopRenew()
	fmt.Fprintf(o.Stderr, "diperf sensor %s (site %s, groups %s): tests at %s, one %v test per %v\n",
		self.Name, self.Site, strings.Join(self.Groups, ","), self.Addr, o.TestTime, o.Period)
	st := sensor.Run(ctx, sensor.Config{Self: self, Period: o.Period, TestTime: o.TestTime,
		Budget: o.effectiveBudget(),
		Log:    func(s string) { fmt.Fprintln(o.Stderr, "diperf sensor:", s) },
		OnList: func(st sensor.Stats) {
			fmt.Fprintf(o.Stderr, "diperf sensor: list %d done: %d tests, %d busy, %d missed; %s\n",
				st.Lists, st.Tests, st.Busy, st.Missed, spentText(st))
		},
		Served: served},
		NewDirectory(o.Directory), &probeAdapter{c: &netprobe.Client{Token: o.Token}, slot: slot})
	fmt.Fprintf(o.Stdout, "tests %d, busy %d, missed %d, lists %d; %s; %s; %s\n",
		st.Tests, st.Busy, st.Missed, st.Lists, spentText(st), srv.Stats(), heldBack(st))
	return nil
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
