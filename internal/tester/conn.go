package tester

import (
	"context"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
)

// readLoop handles what the controller sends during the test. Any read
// error, a Stop or an Error ends the test at once.
func (t *Tester) readLoop() {
	defer close(t.readCh)
	for {
		typ, p, err := t.conn.Read()
		if err != nil {
			t.cancel(fmt.Errorf("%w: %v", ErrLostController, err))
			return
		}
		switch typ {
		case protocol.TypeSyncResp:
			r, err := protocol.DecodeSyncResp(p)
			if err != nil {
				t.cancel(fmt.Errorf("%w: %v", ErrLostController, err))
				return
			}
			select {
			case t.syncCh <- r:
			default: // a late reply to a probe we gave up on
			}
		case protocol.TypeStop:
			t.cancel(errStopped)
		default:
			t.cancel(fmt.Errorf("%w: unexpected %s message", ErrLostController, typ))
			return
		}
	}
}

var errStopped = fmt.Errorf("stopped by the controller")

// probeTimeout bounds the wait for one sync reply.
const probeTimeout = 2 * time.Second

// sync runs one burst of probes, keeps the one with the shortest round trip
// and reports the resulting record to the controller.
func (t *Tester) sync(ctx context.Context) error {
	probes := make([]clock.Probe, 0, t.desc.SyncProbes)
	for i := 0; i < t.desc.SyncProbes; i++ {
		t1 := t.clk.Now()
		if err := t.conn.Write(protocol.TypeSyncReq, protocol.AppendSyncReq(nil, protocol.SyncReq{T1: t1})); err != nil {
			return fmt.Errorf("%w: %v", ErrLostController, err)
		}
		select {
		case r := <-t.syncCh:
			t4 := t.clk.Now()
			if r.T1 == t1 {
				probes = append(probes, clock.Probe{T1: t1, T2: r.T2, T3: r.T3, T4: t4})
			}
		case <-time.After(probeTimeout):
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	rec, ok := clock.Best(probes)
	if !ok {
		return fmt.Errorf("tester: clock sync: no probe answered")
	}
	msg := protocol.SyncRecord{LocalNs: rec.LocalNs, OffsetNs: rec.OffsetNs, RTTNs: rec.RTTNs, BoundNs: rec.BoundNs}
	return t.conn.WriteJSON(protocol.TypeSyncRecord, msg)
}

// resyncLoop re-syncs every sync interval while the test runs.
func (t *Tester) resyncLoop(ctx context.Context) {
	tk := time.NewTicker(time.Duration(t.desc.SyncIntervalNs))
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			if err := t.sync(ctx); err != nil && ctx.Err() == nil {
				fmt.Fprintf(t.o.Log, "tester %s: re-sync failed: %v\n", t.id, err)
			}
		}
	}
}
