package tester

import (
	"context"
	"fmt"
	"github.com/diperf/diperf/internal/clock"
	"time"

	"github.com/diperf/diperf/internal/clocksync"
	"github.com/diperf/diperf/internal/protocol"
)

// sync syncs once and reports the record to the controller.
func (t *Tester) sync() error {
	rec, err := t.sy.Sync()
	h := t.syncHealth()
	if err != nil {
		return err
	}
	t.steer.setClock(t.sy.Global) // load steps are taken once the controller may know the clock synced
	msg := protocol.SyncRecord{LocalNs: rec.LocalNs, OffsetNs: rec.OffsetNs, RTTNs: rec.RTTNs, BoundNs: rec.BoundNs,
		Auth: h.Authenticated, Refused: h.Refused, Disagree: h.Disagreeing, Probes: h.Probes}
	return t.conn.WriteJSON(protocol.TypeSyncRecord, msg)
}

// FirstSyncWindow is how long a tester keeps trying its first clock sync:
// a time server started by an engine may come up after its testers
// (Kubernetes starts pods in any order), or drop a first burst.
const FirstSyncWindow = 30 * time.Second

// firstSyncBackoff spaces the first-sync attempts: doubling from 250 ms
// to 4 s, for FirstSyncWindow (firstSync's window) in all.
var firstSyncBackoff = Backoff{First: 250 * time.Millisecond, Max: 4 * time.Second}

// firstSync calls sync until it succeeds, window has passed (its last
// error is returned), or ctx ends; failed hears the first failure.
func firstSync(ctx context.Context, window time.Duration, sync func() error, failed func(error)) error {
	b := firstSyncBackoff
	b.Window = window
	attempts, stopped, err := b.Retry(ctx, sync, failed)
	switch {
	case err == nil:
		return nil
	case stopped:
		return fmt.Errorf("clock sync: %w (stopped: %w)", err, context.Cause(ctx))
	}
	return fmt.Errorf("clock sync: %d attempts in %v: %w", attempts, window, err)
}

// resyncLoop re-syncs while the test runs.
func (t *Tester) resyncLoop(ctx context.Context) {
	resync(ctx, time.Duration(t.desc.SyncIntervalNs), t.sync, func(err error) {
		fmt.Fprintf(t.o.Log, "tester %s: re-sync failed: %v\n", t.id, err)
	})
}

// resync calls sync on the re-sync schedule (clocksync.NextInterval: 2 s
// after the first sync, then 4 s, 8 s, ... apart, up to interval) until
// ctx is done; a failed sync goes to failed, and the schedule goes on.
func resync(ctx context.Context, interval time.Duration, sync func() error, failed func(error)) {
	next := clocksync.NextInterval(0, interval)
	for clock.Sleep(ctx, next) {
		if err := sync(); err != nil && ctx.Err() == nil {
			failed(err)
		}
		next = clocksync.NextInterval(next, interval)
	}
}

// preciseWindow is how long before a synchronized start the tester stops
// sleeping on Go's timers and sleeps in the kernel instead.
const preciseWindow = 50 * time.Millisecond

// waitForStart sleeps until the global start time the controller ordered
// and returns the local time it woke at (its achieved start), or 0 when
// there is no start time to wait for. It reports false if the tester was
// stopped first. The last stretch is slept in the kernel on a locked
// thread (preciseSleep): many testers on few cores all wake at once, and
// each one's way back through Go's timers and scheduler adds to the skew
// of the ones behind it.
func (t *Tester) waitForStart(ctx context.Context) (int64, bool) {
	at := t.desc.StartAtNs
	if at == 0 {
		return 0, true
	}
	for {
		now, _ := t.sy.Global()
		d := time.Duration(at - now)
		if d <= preciseWindow {
			woke := preciseSleep(func() time.Duration {
				now, _ := t.sy.Global()
				return time.Duration(at - now)
			}, t.clk.Now)
			return woke, ctx.Err() == nil
		}
		if !clock.Sleep(ctx, d-preciseWindow) {
			return 0, false
		}
	}
}
