package controller

import (
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// clientsStopping is the most time a tester's clients may take to stop once
// their calls are cut off: an exec call's client.kill_grace, then the
// grace of what is left in the tester's jail; a persistent program's
// grace after the end of its stdin, after SIGTERM, and the jail's.
func (c *controller) clientsStopping() time.Duration {
	d := c.client
	if c.o.Client != nil {
		d = *c.o.Client
	}
	g := time.Duration(d.KillGraceNs)
	if d.Kind == protocol.ClientPersistent {
		return 3 * g
	}
	return 2 * g
}

// stopGrace is how long a tester told to stop has before it is killed:
// stopGrace, and the time its clients may take to stop.
func (c *controller) stopGrace() time.Duration { return stopGrace + c.clientsStopping() }
