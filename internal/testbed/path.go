package testbed

import (
	"fmt"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/relay"
	"github.com/diperf/diperf/internal/transport"
)

// Path is how a run's testers reach their controller, chosen once for the
// run (Choose, PathOf): how each tester opens its connection, whether
// relay workers accept those connections in the controller's place, and
// whether the samples travel as datagrams beside it. The controller, the
// testbed's tester command lines and the tester all follow it; nothing
// else decides (docs/design/006, "How a tester reaches its controller:
// one choice").
type Path struct {
	Reach transport.Reach // how a tester opens its connection (ReachOf the provider)
	// Relays is how many relay worker processes accept the testers'
	// connections, each holding at most PerRelay (0: the controller
	// accepts them itself); only for testers that dial (Reach.Dials).
	Relays, PerRelay int
	// UDPSamples says the testers send their samples as authenticated
	// datagrams to the controller's UDP socket (controller.transport:
	// udp; docs/design/014); everything else keeps to the connection.
	UDPSamples bool
}

// ReachOf is how the testers of provider reach their controller: over
// their SSH sessions (ssh), joining on their own (join, slurm), or
// dialling the address they are started with (local).
func ReachOf(provider string) transport.Reach {
	switch provider {
	case experiment.ProviderSSH:
		return transport.Attached
	case experiment.ProviderJoin, experiment.ProviderSlurm:
		return transport.Join
	}
	return transport.Dial
}

// PathOf is the path of exp's testers without relays: the reach of its
// provider and its sample transport.
func PathOf(exp *experiment.Experiment) Path {
	return Path{Reach: ReachOf(exp.Testbed.Provider), UDPSamples: exp.Controller.Transport == experiment.TransportUDP}
}

// Choose is PathOf exp with its relays planned from controller.relays and
// hardLimit, the open-file hard limit (RLIMIT_NOFILE) of this process, to
// which the soft limit will be raised: when asked for none, none; when
// asked for N, N sharing the testers; by default none while the
// controller may open a file per tester itself, else as many as the
// testers need at the hard limit each. Only joining testers take relays
// by default: the local provider's testers still cost the controller
// their pipes and logs, and ssh testers come over their sessions.
func Choose(exp *experiment.Experiment, hardLimit uint64) (Path, error) {
	p := PathOf(exp)
	n := exp.Schedule.Testers
	each := int(min(hardLimit, 1<<30)) - relay.Reserve
	asked := exp.Controller.Relays
	switch {
	case asked != nil && *asked == 0:
		return p, nil
	case asked != nil:
		per := (n + *asked - 1) / *asked
		if per > each {
			return p, errs.Usage(fmt.Errorf("controller.relays: %d relays of %d testers each, and a process may open %d files (RLIMIT_NOFILE hard limit)",
				*asked, per, hardLimit), fmt.Sprintf("use at least %d relays, or leave controller.relays out", (n+each-1)/each))
		}
		p.Relays, p.PerRelay = *asked, per+per/8+1
		return p, nil
	case OwnFiles(exp, 0) <= hardLimit || p.Reach != transport.Join:
		return p, nil
	}
	k := (n + each - 1) / each
	per := (n + k - 1) / k
	p.Relays, p.PerRelay = k, min(per+per/8+1, each)
	return p, nil
}

// OwnFiles is about how many files a controller of exp keeps open for its
// own work: a connection per tester, and for local testers the pipes and
// log of each one's process too, plus the run's own files and sockets (the
// listeners, the time server's, the spool, the event and journal files,
// epoll, stdio: about 20; 32 leaves room). With relays relay workers
// (0: none), each costs two sockets and the testers' connections cost the
// relays, not the controller.
func OwnFiles(exp *experiment.Experiment, relays int) uint64 {
	per, n := uint64(1), uint64(exp.Schedule.Testers)
	if exp.Testbed.Provider == experiment.ProviderLocal {
		per = 4
	}
	files := 32 + per*n
	if relays > 0 {
		files += 2*uint64(relays) - n
	}
	return files
}
