package tester

import (
	"context"
	"math"
	"os"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// maxHealthPending is the most seconds the outbox keeps unsent (a stuck
// wire): past it the oldest go.
const maxHealthPending = 4 * protocol.MaxHealthBatch

// healthEvery is how often the tester measures its self-health.
const healthEvery = time.Second

// healthLoop measures the tester's self-health every second until ctx is
// done, and queues each second for the next flush.
func (t *Tester) healthLoop(ctx context.Context, m *healthMeter) {
	m.measure(t.clk.Now()) // the counters the first second starts from
	tickEvery(ctx, healthEvery, func() bool {
		t.out.addHealth(t.healthSecond(m))
		return true
	})
}

// healthSecond measures the second that ends now.
func (t *Tester) healthSecond(m *healthMeter) protocol.HealthSecond {
	now := t.clk.Now()
	r := m.measure(now)
	t.out.mu.Lock()
	mean, most, n := t.out.lag.take()
	t.out.mu.Unlock()
	return protocol.HealthSecond{LocalNs: now, CPUPct: orZero(r.cpuPct), CPUCores: r.cores,
		HostBusyPct: orNil(r.busyPct), HostStealPct: orNil(r.stealPct), ThrottledPct: orNil(r.throttledPct),
		LagMeanMs: mean, LagMaxMs: most, Starts: n, FDs: r.fds, FDLimit: r.fdLimit}
}

// orNil is v, or nil when it is NaN.
func orNil(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// orZero is v, or 0 when it is NaN.
func orZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// startHealth starts the health loop when the controller asked for it
// (TestDesc.Health) and the kernel shows its
// counters (/proc), and returns the function that stops it and waits.
func (t *Tester) startHealth(ctx context.Context) (stop func()) {
	m := newHealthMeter("", os.Getpid())
	if !t.desc.Health || m.cores == 0 { // no /proc (not Linux): nothing to measure
		return func() {}
	}
	hctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.healthLoop(hctx, m)
	}()
	return func() { cancel(); <-done }
}

// addHealth queues one second for the next flush.
func (o *outbox) addHealth(h protocol.HealthSecond) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.health) >= maxHealthPending {
		o.health = o.health[1:]
	}
	o.health = append(o.health, h)
}

// sendHealth sends the seconds hs in batches of at most
// protocol.MaxHealthBatch, unless the wire already failed (werr); it
// returns the wire's error.
func (o *outbox) sendHealth(werr error, hs []protocol.HealthSecond) error {
	for len(hs) > 0 && werr == nil {
		n := min(len(hs), protocol.MaxHealthBatch)
		werr = o.conn.WriteJSON(protocol.TypeHealth, protocol.HealthBatch{Seconds: hs[:n]})
		hs = hs[n:]
	}
	return werr
}
