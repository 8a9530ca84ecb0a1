package controller

import (
	"fmt"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/transport"
)

// joinAddress puts the address testers join at, once advertised, where a
// person reads how to join: the comment of the token the testbed hands
// over (a slurm run writes it for its tasks) and the progress output: for
// a join run the command to join with, for a slurm run the address its
// tasks join.
func (c *controller) joinAddress() {
	if tok, err := credential.ParseToken(c.token); err == nil {
		c.token = tok.EncodeFor(c.addr)
	}
	if c.o.Progress == nil {
		return
	}
	switch c.exp.Testbed.Provider {
	case experiment.ProviderJoin:
		fmt.Fprintf(c.o.Progress, "diperf: testers join with: diperf tester %s %s --token-file %s\n", transport.Join.Flag(), c.addr, c.exp.Testbed.TokenFile)
	case experiment.ProviderSlurm:
		fmt.Fprintf(c.o.Progress, "diperf: the slurm tasks join the controller at %s\n", c.addr)
	}
}
