package sensord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/sensor"
)

// keepRegistered registers self and renews its lease until stop, again
// from the start when the directory forgot it (a restart on a new file).
func keepRegistered(ctx context.Context, stderr io.Writer, dc *directory.Client, self sensor.Peer) (stop func(), err error) {
	reg := directory.Registration{Name: self.Name, Address: self.Addr, Version: self.Version,
		Groups: append(append([]string{}, self.Groups...), netmap.SitePrefix+self.Site), Capabilities: []string{"bandwidth", "latency"}}
	lease, err := registerFirst(ctx, stderr, dc, reg)
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
				fmt.Fprintf(stderr, "diperf sensor: renewing: %v\n", err)
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
func registerFirst(ctx context.Context, stderr io.Writer, dc *directory.Client, reg directory.Registration) (directory.Lease, error) {
	for said := false; ; said = true {
		lease, err := dc.Register(ctx, reg)
		var api *directory.APIError
		switch {
		case err == nil:
			if said {
				fmt.Fprintln(stderr, "diperf sensor: registered")
			}
			return lease, nil
		case errors.As(err, &api) && api.Status/100 == 4 && api.Status != http.StatusTooManyRequests:
			// a 429 (too many new names from this address for now) passes;
			// every other refusal lasts
			return lease, fmt.Errorf("sensor: registering with the directory: %w", err)
		case !said:
			fmt.Fprintf(stderr, "diperf sensor: registering with the directory: %v; trying again every %v\n", err, registerRetry)
		}
		if !clock.Sleep(ctx, registerRetry) {
			return lease, fmt.Errorf("sensor: never registered with the directory: %w", err)
		}
	}
}

// deregister takes the sensor out of the directory's list at its clean
// end, within 5 s; a directory that does not answer is told on stderr.
func deregister(stderr io.Writer, dc *directory.Client, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := dc.Deregister(ctx, name); err != nil && !errors.Is(err, directory.ErrNotRegistered) {
		fmt.Fprintf(stderr, "diperf sensor: deregistering: %v\n", err)
	}
}
