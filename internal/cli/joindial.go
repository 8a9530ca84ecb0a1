package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/tester"
	"github.com/diperf/diperf/internal/transport"
)

// defaultJoinRetry is how long a joining tester keeps trying to reach a
// controller that does not answer yet (diperf tester --join-retry): an
// engine starts its testers in any order, often before the controller
// listens or before its name resolves.
const defaultJoinRetry = 2 * time.Minute

// joinBackoff spaces a joining tester's connection attempts: doubling
// from 100 ms to 5 s, for --join-retry in all.
var joinBackoff = tester.Backoff{First: 100 * time.Millisecond, Max: 5 * time.Second}

// joinDialer is a transport whose first dial of the controller's address
// is retried with back-off for up to window. Every later dial (the time
// server, a reconnection) goes through at once, as before: only a tester
// that never reached its controller waits for it.
type joinDialer struct {
	transport.Transport
	addr   string        // the controller's address (--join)
	window time.Duration // how long the first dial keeps trying
	log    io.Writer     // where the first failure is told
	dialed atomic.Bool   // the first dial of addr has been made
}

// Dial dials addr; the first dial of the controller's address retries
// until it connects, window has passed, or ctx ends.
func (d *joinDialer) Dial(ctx context.Context, addr string) (net.Conn, error) {
	if addr != d.addr || d.dialed.Swap(true) || d.window <= 0 {
		return d.Transport.Dial(ctx, addr)
	}
	b := joinBackoff
	b.Window = d.window
	var c net.Conn
	attempts, stopped, err := b.Retry(ctx, func() (err error) {
		c, err = d.Transport.Dial(ctx, addr)
		return err
	}, func(err error) {
		fmt.Fprintf(d.log, "diperf tester: the controller at %s does not answer yet (%v); trying again for up to %v\n", addr, err, d.window)
	})
	switch {
	case stopped:
		return nil, fmt.Errorf("joining the controller at %s: %w", addr, ctx.Err())
	case err != nil:
		return nil, fmt.Errorf("no controller answered at %s within --join-retry %v (%d attempts): %w", addr, d.window, attempts, err)
	case attempts > 1:
		fmt.Fprintf(d.log, "diperf tester: reached the controller at %s after %d attempts\n", addr, attempts)
	}
	return c, nil
}
