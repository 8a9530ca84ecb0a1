package tester

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
)

// Failure semantics of the tester (docs/design/011-failure-semantics.md).
const (
	// SilenceLimit is how long the controller may say nothing (no frame
	// at all: it sends a heartbeat every second) before the tester takes
	// itself for cut off and stops its client loop, provided a probe sent
	// a third of that earlier went unanswered. Silence is counted in the
	// time this tester was running (clock.Awake): its own stall is not the
	// controller's silence. With the check every watchEvery, the clients
	// stop within 5 s of the cut.
	SilenceLimit = 3 * time.Second
	// GiveUpAfter is how long a cut-off tester waits for the controller
	// to be heard again before it exits, its samples kept in its spool.
	GiveUpAfter = 2 * time.Minute
	// watchEvery is how often the silence is checked, and the period of
	// the ticker of the awake clock.
	watchEvery = 250 * time.Millisecond
	// stallStep is the longest step between two ticks of the awake clock
	// that counts in full: a tick later than that shows the tester's own
	// process was stopped, and the rest of the step is left out.
	stallStep = 2 * watchEvery
)

// ReasonCutOff is the Done reason of a tester whose client loop stopped
// because the controller fell silent, and which was heard again.
const ReasonCutOff = "cut off from the controller"

// errCutOff ends the client loop when the controller falls silent.
var errCutOff = errors.New(ReasonCutOff)

// liveState is what the tester knows of the controller's signs of life.
type liveState struct {
	awake  *clock.Awake  // the time this tester was running
	heard  atomic.Int64  // awake time of the controller's last frame, ns
	frames atomic.Uint64 // frames heard from the controller
	probes atomic.Uint64 // probes sent
	probe  chan struct{} // the silence watch asks the heartbeat loop for a probe
}

// newLiveState measures time on now (nil: time.Now).
func newLiveState(now func() time.Time) *liveState {
	if now == nil {
		now = time.Now
	}
	return &liveState{awake: clock.NewAwakeAt(now, stallStep), probe: make(chan struct{}, 1)}
}

// heard records that a frame came from the controller.
func (t *Tester) heard() {
	t.lv.heard.Store(int64(t.lv.awake.Now()))
	t.lv.frames.Add(1)
}

// tickAwake ticks the awake clock every watchEvery until ctx is done.
func (t *Tester) tickAwake(ctx context.Context) {
	tickEvery(ctx, watchEvery, func() bool {
		if d := t.lv.awake.Tick(); d > 0 {
			fmt.Fprintf(t.o.Log, "tester %s: this process did not run for %v (left out of the controller's silence)\n",
				t.id, (d + stallStep).Round(time.Millisecond))
		}
		return true
	})
}

// heartbeatLoop sends a heartbeat whenever nothing else was sent to the
// controller for half a period (checked every half period: no silence
// is longer than a period), and a probe when the silence watch asks for
// one, until ctx is done or a write fails (the read side then sees the
// connection end); a spool error to report goes at once. It waits on
// nothing but its timer and the connection: a write that blocks (a
// partition) blocks this loop alone.
func (t *Tester) heartbeatLoop(ctx context.Context, period time.Duration) {
	tk := time.NewTicker(period / 2)
	defer tk.Stop()
	for {
		var probe uint64
		select {
		case <-ctx.Done():
			return
		case <-t.lv.probe:
			probe = t.lv.probes.Add(1)
		case <-tk.C:
		}
		p := t.heartbeatPayload(probe)
		if p == nil && time.Since(t.conn.LastWrite()) < period/2 {
			continue // a batch or a sync record said it
		}
		if t.conn.Write(protocol.TypeHeartbeat, p) != nil {
			return
		}
	}
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

// heartbeatPayload is empty, or the probe's number (0: not a probe) and
// once the report of a spool error.
func (t *Tester) heartbeatPayload(probe uint64) []byte {
	t.mu.Lock()
	msg := t.spoolErr
	t.spoolErr = ""
	t.mu.Unlock()
	if msg == "" && probe == 0 {
		return nil
	}
	b, _ := json.Marshal(protocol.Heartbeat{SpoolError: msg, Probe: probe})
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
// been silent for limit of this tester's running time and did not answer
// the probe sent limit/3 before, checked every watchEvery until ctx is
// done.
func (t *Tester) watchSilence(ctx context.Context, limit time.Duration) {
	w := silenceWatch{limit: limit, wait: limit / 3}
	tickEvery(ctx, watchEvery, func() bool {
		switch w.next(t.lv.awake.Now(), time.Duration(t.lv.heard.Load())) {
		case askProbe:
			select {
			case t.lv.probe <- struct{}{}:
			default: // one is on its way
			}
		case giveUpLoop:
			t.cancel(errCutOff)
			return false
		}
		return true
	})
}
