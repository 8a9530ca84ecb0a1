package cli

import (
	"flag"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
)

// probeLimits are the directory's bounds on one requester's on-demand
// tests (diperf probe).
type probeLimits struct{ perMinute, pending int }

func (p *probeLimits) add(fs *flag.FlagSet) {
	fs.IntVar(&p.perMinute, "probes-per-minute", directory.DefaultProbesPerMinute, "on-demand tests (diperf probe) one address may ask for in a minute")
	fs.IntVar(&p.pending, "probes-pending", directory.DefaultProbesPending, "on-demand tests of one address pending or running at once")
}

// check refuses limits below 1 (0 would be the defaults, silently).
func (p *probeLimits) check() error {
	if p.perMinute < 1 || p.pending < 1 {
		return errs.Usagef("--probes-per-minute and --probes-pending must be at least 1, got %d and %d", p.perMinute, p.pending)
	}
	return nil
}
