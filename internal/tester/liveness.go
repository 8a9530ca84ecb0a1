package tester

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// Failure semantics of the tester (docs/design/011-failure-semantics.md).
const (
	// SilenceLimit is how long the controller may say nothing (no frame
	// at all: it sends a heartbeat every second) before the tester takes
	// itself for cut off and stops its client loop: with the check every
	// watchEvery, the clients stop within 5 s of the cut.
	SilenceLimit = 3 * time.Second
	// GiveUpAfter is how long a cut-off tester waits for the controller
	// to be heard again before it exits, its samples kept in its spool.
	GiveUpAfter = 2 * time.Minute
	// watchEvery is how often the silence is checked.
	watchEvery = 250 * time.Millisecond
)

// ReasonCutOff is the Done reason of a tester whose client loop stopped
// because the controller fell silent, and which was heard again.
const ReasonCutOff = "cut off from the controller"

// errCutOff ends the client loop when the controller falls silent.
var errCutOff = errors.New(ReasonCutOff)

// heard records that a frame came from the controller.
func (t *Tester) heard() { t.lastHeard.Store(t.now().UnixNano()) }

// now is the clock of the liveness watch.
func (t *Tester) now() time.Time {
	if t.o.now != nil {
		return t.o.now()
	}
	return time.Now()
}

// heardAt is when the controller was last heard.
func (t *Tester) heardAt() time.Time { return time.Unix(0, t.lastHeard.Load()) }

// heartbeatLoop sends a heartbeat whenever nothing else was sent to the
// controller for half a period (checked every half period: no silence
// is longer than a period), until ctx is done or a write fails (the read
// side then sees the connection end); a spool error to report goes at
// once. A write that blocks (a partition) blocks this loop alone.
func (t *Tester) heartbeatLoop(ctx context.Context, period time.Duration) {
	tickEvery(ctx, period/2, func() bool {
		p := t.heartbeatPayload()
		if p == nil && time.Since(t.conn.LastWrite()) < period/2 {
			return true // a batch or a sync record said it
		}
		return t.conn.Write(protocol.TypeHeartbeat, p) == nil
	})
}

// silence is how long the controller may say nothing before this tester
// takes itself for cut off: SilenceLimit, or longer when the test
// description says so (a run of many testers, whose controller speaks to
// each one less often).
func (t *Tester) silence() time.Duration {
	return max(SilenceLimit, time.Duration(t.desc.SilenceNs))
}

// tickEvery calls f every period until ctx is done or f returns false.
func tickEvery(ctx context.Context, period time.Duration, f func() bool) {
	tk := time.NewTicker(period)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		if !f() {
			return
		}
	}
}

// heartbeatPayload is empty, or once the report of a spool error.
func (t *Tester) heartbeatPayload() []byte {
	t.mu.Lock()
	msg := t.spoolErr
	t.spoolErr = ""
	t.mu.Unlock()
	if msg == "" {
		return nil
	}
	b, _ := json.Marshal(protocol.Heartbeat{SpoolError: msg})
	return b
}

// spoolFailed is the disk spool's first error: logged once and reported
// to the controller with the next heartbeat; the test goes on.
func (t *Tester) spoolFailed(err error) {
	fmt.Fprintf(t.o.Log, "tester %s: %v; samples go on over the wire only\n", t.id, err)
	t.mu.Lock()
	t.spoolErr = err.Error()
	t.mu.Unlock()
}

// watchSilence ends the client loop (errCutOff) once the controller has
// been silent for limit, checked every watchEvery until ctx is done.
func (t *Tester) watchSilence(ctx context.Context, limit time.Duration) {
	tickEvery(ctx, watchEvery, func() bool {
		if t.now().Sub(t.heardAt()) < limit {
			return true
		}
		t.cancel(errCutOff)
		return false
	})
}

// cutOff runs once the client loop stopped on the controller's silence:
// the clients are gone, every sample is in the spool and on its way, and
// the connection is kept. When the controller is heard again (a partition
// healed) the tester sends the rest and Done; when the connection ends,
// or the controller stays silent for GiveUpAfter, it gives up.
func (t *Tester) cutOff() error {
	cut := time.Now()
	fmt.Fprintf(t.o.Log, "tester %s: no word from the controller for %v: client loop stopped; waiting up to %v for it\n",
		t.id, t.silence(), GiveUpAfter)
	flushed := make(chan struct{}) // the wire may block until the partition heals
	go func() { defer close(flushed); _ = t.out.flush() }()
	giveUp := time.NewTimer(GiveUpAfter)
	defer giveUp.Stop()
	tk := time.NewTicker(watchEvery)
	defer tk.Stop()
	for {
		select {
		case <-t.readCh:
			return fmt.Errorf("%w: the connection ended while cut off (samples kept in the spool)", ErrLostController)
		case <-giveUp.C:
			return fmt.Errorf("%w: cut off for %v; gave up (samples kept in the spool)", ErrLostController, GiveUpAfter)
		case <-tk.C:
		}
		if !t.heardAt().After(cut) {
			continue
		}
		select {
		case <-flushed:
		case <-giveUp.C:
			return fmt.Errorf("%w: could not send its samples for %v; gave up (samples kept in the spool)", ErrLostController, GiveUpAfter)
		}
		fmt.Fprintf(t.o.Log, "tester %s: the controller is back after %v; sending the rest\n", t.id, time.Since(cut).Round(time.Millisecond))
		return t.finish(ReasonCutOff)
	}
}
