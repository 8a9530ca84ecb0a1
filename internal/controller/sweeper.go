package controller

import (
	"sync"
	"time"

	"github.com/diperf/diperf/internal/clock"
)

// awakeClock is the controller's clock of the time it was running.
type awakeClock = clock.Awake

// sweepStall is the longest step between two sweeps that counts in full
// on the controller's awake clock: a later sweep shows that the
// controller's own process was stopped (a SIGSTOP, a host that did not
// run it), and the rest of the step is no tester's silence.
const sweepStall = 5 * sweepEvery

// sweepWhileLaunching starts the controller's awake clock and tends the
// slots due every sweepEvery while the schedule is still launching
// testers, until the returned func is called (waitAll then takes over):
// a ramp-up of tester_start_interval may take minutes, and the testers
// launched first need their heartbeats, acknowledgements and loss bound
// meanwhile.
func (c *controller) sweepWhileLaunching() (stop func()) {
	c.awake = clock.NewAwake(sweepStall)
	return runEvery(sweepEvery, func() {
		c.tickAwake()
		c.sweep() // whether every slot launched so far finished does not matter yet
	})
}

// runEvery calls f every period, from a goroutine of its own, until the
// returned func is called (it returns once f is no longer running).
func runEvery(period time.Duration, f func()) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tk.C:
				f()
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

// tickAwake ticks the awake clock (before a sweep, outside c.mu: time
// spent waiting for the lock is time the controller was running), and
// notes a stall of the controller's own process in the event log.
func (c *controller) tickAwake() {
	if c.awake == nil {
		return
	}
	if d := c.awake.Tick(); d > 0 {
		c.events.Add("controller-stall", -1, "", (d+sweepStall).Round(time.Millisecond).String()+
			" without running (left out of the testers' silence)")
	}
}

// awakeNow is the time the controller was running, on its awake clock (0
// before the clock starts).
func (c *controller) awakeNow() time.Duration {
	if c.awake == nil {
		return 0
	}
	return c.awake.Now()
}
