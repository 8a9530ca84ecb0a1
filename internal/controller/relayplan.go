package controller

import (
	"fmt"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/relay"
)

// RelayPlan is how a run's testers reach its controller: through Relays
// workers of PerRelay connections each, or (Relays 0) directly.
type RelayPlan struct{ Relays, PerRelay int }

// PlanRelays decides the run's relays from controller.relays and
// hardLimit, the open-file hard limit (RLIMIT_NOFILE) of this process,
// to which the soft limit will be raised: when asked for none, none; when
// asked for N, N sharing the testers; by default none while the
// controller may open a file per tester itself, else as many as the
// testers need at the hard limit each. Only testers that dial the
// controller use relays: the local provider's testers still cost the
// controller their pipes and logs, and ssh testers come over their
// sessions.
func PlanRelays(exp *experiment.Experiment, hardLimit uint64) (RelayPlan, error) {
	n := exp.Schedule.Testers
	each := int(min(hardLimit, 1<<30)) - relay.Reserve
	asked := exp.Controller.Relays
	switch {
	case asked != nil && *asked == 0:
		return RelayPlan{}, nil
	case asked != nil:
		per := (n + *asked - 1) / *asked
		if per > each {
			return RelayPlan{}, errs.Usage(fmt.Errorf("controller.relays: %d relays of %d testers each, and a process may open %d files (RLIMIT_NOFILE hard limit)",
				*asked, per, hardLimit), fmt.Sprintf("use at least %d relays, or leave controller.relays out", (n+each-1)/each))
		}
		return RelayPlan{Relays: *asked, PerRelay: per + per/8 + 1}, nil
	case OwnFiles(exp, 0) <= hardLimit || exp.Testbed.Provider == experiment.ProviderLocal || exp.Testbed.Provider == experiment.ProviderSSH:
		return RelayPlan{}, nil
	}
	k := (n + each - 1) / each
	per := (n + k - 1) / k
	return RelayPlan{Relays: k, PerRelay: min(per+per/8+1, each)}, nil
}

// Apply puts the plan into the controller's options and returns the
// files the controller itself then needs (OwnFiles).
func (p RelayPlan) Apply(o *Options, exp *experiment.Experiment) uint64 {
	if p.Relays > 0 {
		o.Relays, o.RelayMaxConns = p.Relays, p.PerRelay
	}
	return OwnFiles(exp, p.Relays)
}
