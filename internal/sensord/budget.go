package sensord

import (
	"context"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/internal/sensor"
)

// serveBudget wires the sensor's test server to its budget: the tests it
// serves are charged to it (the returned account goes to
// sensor.Config.Served) within their limits, and what the server and the
// slot do of note is said on stderr.
func (o *Options) serveBudget(srv *netprobe.Server, slot *netprobe.Slot) *sensor.Served {
	served := sensor.NewServed(o.effectiveBudget(), time.Now())
	log := func(s string) { fmt.Fprintln(o.Stderr, "diperf sensor:", s) }
	srv.Budget, srv.Log, slot.Log = served, log, log
	return served
}

// budgetShares is the default budget in test-time/period: a sensor's own
// tests (one a period), about as many served to its peers (in a mesh, a
// sensor is the far end of about as many tests as it runs), and room for
// more: a site's global sensors are also tested by the other sites'
// (1.5 more in a mesh of 2 sites of 2).
const budgetShares = 3

// effectiveBudget is the sensor's budget: Budget, by default
// budgetShares × TestTime/Period.
func (o *Options) effectiveBudget() sensor.Budget {
	b := sensor.Budget{Fraction: o.Budget, BytesPerHour: o.BytesPerHour}
	if b.Fraction == 0 {
		b.Fraction = min(1, budgetShares*float64(o.TestTime)/float64(o.Period))
	}
	return b
}

// takeSlot takes this sensor's bandwidth slot for its own test to peer,
// for at most the longest a test of d may last (netprobe.HoldLimit): the
// test runs under the returned context. When the slot is held (the
// server is the far end of a peer's test), the error says so and is
// sensor.ErrBusy to the loop, which tries again later.
func takeSlot(ctx context.Context, slot *netprobe.Slot, peer string, d time.Duration) (context.Context, func(), error) {
	hctx, release, err := slot.Take(ctx, "this sensor's own bandwidth test to "+peer, netprobe.HoldLimit(d))
	if err != nil {
		return nil, nil, ownSlotHeld{err}
	}
	return hctx, release, nil
}

// ownSlotHeld is why a bandwidth test of this sensor did not start: its
// own slot is held, not the peer's. The loop retries it as a busy one.
type ownSlotHeld struct{ err error }

func (e ownSlotHeld) Error() string { return "not started: this sensor is busy: " + e.err.Error() }

// Is makes it sensor.ErrBusy to the loop.
func (e ownSlotHeld) Is(target error) bool { return target == sensor.ErrBusy }

func (e ownSlotHeld) Unwrap() error { return e.err }
