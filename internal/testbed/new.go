package testbed

import (
	"fmt"
	"net"
	"os"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// New returns the testbed the experiment's testbed section names, given
// its hosts, testers_per_host and deploy files. A provider this build does
// not run, or settings it cannot honour, is a bad experiment (exit code 2).
func New(tb experiment.Testbed) (Testbed, error) {
	if err := experiment.CheckProvider(tb.Provider); err != nil {
		return nil, errs.Usage(fmt.Errorf("testbed.provider: %w", err), "")
	}
	switch tb.Provider {
	case experiment.ProviderLocal:
		return NewLocal(tb)
	case experiment.ProviderSSH:
		return NewSSH(tb), nil
	case experiment.ProviderJoin:
		return NewJoin(tb), nil
	case experiment.ProviderSlurm:
		return NewSlurm(tb), nil
	}
	return nil, fmt.Errorf("testbed.provider: %q has no implementation in this build", tb.Provider)
}

// LocalHost is the host name of this machine in Ready.Hosts.
const LocalHost = "localhost"

// IsLocalHost reports whether h names this machine: localhost, a loopback
// address, or this machine's host name.
func IsLocalHost(h string) bool {
	if h == LocalHost {
		return true
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	name, err := os.Hostname()
	return err == nil && h == name
}
