package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/relay"
)

// relayCmd is a relay worker, started by the controller with its listening
// socket and a Unix socket to it (package relay); never by hand.
func relayCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "relay", "--max-conns N (started by diperf run; fd 3: the listener, fd 4: the controller)")
	maxConns := fs.Int("max-conns", 0, "tester connections to hold at most")
	if err := fs.Parse(args); err != nil {
		return errs.Usage(err, "")
	}
	if err := raiseNoFile(io.Discard, fmt.Sprintf("a relay of %d testers", *maxConns), uint64(*maxConns+relay.Reserve)); err != nil {
		return err
	}
	return relay.RunWorker(*maxConns)
}
