package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/diperf/diperf/internal/controller"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/relay"
)

// relayReserve is what a relay keeps of its open-file limit for itself
// (relay.Reserve).
const relayReserve = relay.Reserve

// relayCmd is a relay worker, started by the controller with its listening
// socket and a Unix socket to it (package relay); never by hand.
func relayCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "relay", "--max-conns N (started by diperf run; fd 3: the listener, fd 4: the controller)")
	maxConns := fs.Int("max-conns", 0, "tester connections to hold at most")
	if err := fs.Parse(args); err != nil {
		return errs.Usage(err, "")
	}
	if err := raiseNoFile(io.Discard, fmt.Sprintf("a relay of %d testers", *maxConns), uint64(*maxConns+relayReserve)); err != nil {
		return err
	}
	return relay.RunWorker(*maxConns)
}

// relayPlan is how a run's testers reach its controller: through relays
// workers of perRelay connections each, or (relays 0) directly.
type relayPlan struct{ relays, perRelay int }

// planRelays decides the run's relays from controller.relays and the
// open-file limit lim (after raising the soft limit to the hard one):
// when asked for none, none; when asked for N, N sharing the testers;
// by default none while the controller may open a file per tester itself,
// else as many as the testers need at the hard limit each. Only testers
// that dial the controller use relays: the local provider's testers still
// cost the controller their pipes and logs, and ssh testers come over
// their sessions.
func planRelays(exp *experiment.Experiment, lim rlimit) (relayPlan, error) {
	n := exp.Schedule.Testers
	each := int(min(lim.max, 1<<30)) - relayReserve
	asked := exp.Controller.Relays
	switch {
	case asked != nil && *asked == 0:
		return relayPlan{}, nil
	case asked != nil:
		per := (n + *asked - 1) / *asked
		if per > each {
			return relayPlan{}, errs.Usage(fmt.Errorf("controller.relays: %d relays of %d testers each, and a process may open %d files (RLIMIT_NOFILE hard limit)",
				*asked, per, lim.max), fmt.Sprintf("use at least %d relays, or leave controller.relays out", (n+each-1)/each))
		}
		return relayPlan{relays: *asked, perRelay: per + per/8 + 1}, nil
	case controllerFiles(exp) <= lim.max || exp.Testbed.Provider == experiment.ProviderLocal || exp.Testbed.Provider == experiment.ProviderSSH:
		return relayPlan{}, nil
	}
	k := (n + each - 1) / each
	per := (n + k - 1) / k
	return relayPlan{relays: k, perRelay: min(per+per/8+1, each)}, nil
}

// applyRelays puts the plan into the controller's options and returns the
// files the controller itself then needs.
func applyRelays(o *controller.Options, exp *experiment.Experiment, p relayPlan) uint64 {
	if p.relays > 0 {
		o.Relays, o.RelayMaxConns = p.relays, p.perRelay
	}
	return controller.OwnFiles(exp, p.relays)
}
