package controller

import (
	"fmt"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/experiment"
)

// joinAddress puts the address testers join at, once advertised, where a
// person reads how to join: the comment of the token the testbed hands
// over (a slurm run writes it for its tasks) and, for a join run, the
// progress output, with the token file to give.
func (c *controller) joinAddress() {
	if tok, err := credential.ParseToken(c.token); err == nil {
		c.token = tok.EncodeFor(c.addr)
	}
	if c.exp.Testbed.Provider == experiment.ProviderJoin && c.o.Progress != nil {
		fmt.Fprintf(c.o.Progress, "diperf: testers join with: diperf tester --join %s --token-file %s\n", c.addr, c.exp.Testbed.TokenFile)
	}
}
