package sensord

import (
	"context"
	"errors"
	"time"

	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/internal/sensor"
)

// probeAdapter runs the loop's tests with the netprobe client, a
// bandwidth test only while this sensor's own slot is free (its server
// then refuses peers' bandwidth tests until it is done).
type probeAdapter struct {
	c    *netprobe.Client
	slot *netprobe.Slot
}

func (p *probeAdapter) Run(ctx context.Context, t sensor.Test, d time.Duration) (sensor.Measurement, error) {
	allowed := uint64(t.MaxBytes) // 0: no cap
	if t.Kind == sensor.Latency {
		r, err := p.c.LatencyWithin(ctx, t.Peer.Addr, d, 0, allowed)
		return sensor.Measurement{LatencyMs: ms(r.Latency), P50Ms: ms(r.P50), P90Ms: ms(r.P90), P99Ms: ms(r.P99),
			Bytes: float64(r.Wire.Total()), Capped: r.Capped}, probeErr(err)
	}
	ctx, release, err := takeSlot(ctx, p.slot, t.Peer.Name, d)
	if err != nil {
		return sensor.Measurement{}, err // serving a peer's bandwidth test: ours would measure half
	}
	defer release()
	r, err := p.c.BandwidthWithin(ctx, t.Peer.Addr, d, allowed)
	return sensor.Measurement{BandwidthBps: r.BitsPerSec, SteadyBps: r.SteadyBitsPerSec, Bytes: float64(r.Wire.Total()),
		Capped: r.Capped, DataStart: r.Start, DataTime: r.TestTime}, probeErr(err)
}

// probeErr is a netprobe error as the loop knows it: busy, a peer that
// did not answer, an allowance too small; the message is netprobe's.
func probeErr(err error) error {
	switch {
	case errors.Is(err, netprobe.ErrBusy):
		return sensor.ErrBusy
	case errors.Is(err, netprobe.ErrUnreachable):
		return alsoIs{err, sensor.ErrUnreachable}
	case errors.Is(err, netprobe.ErrAllowance):
		return alsoIs{err, sensor.ErrOverBudget}
	}
	return err
}

// alsoIs is an error that is also target, with its own message.
type alsoIs struct {
	error
	target error
}

func (e alsoIs) Is(target error) bool { return target == e.target }
func (e alsoIs) Unwrap() error        { return e.error }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
