package controller

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
)

// state of one tester slot.
type state int

const (
	launched state = iota // process started, not joined yet
	joined                // admitted, test description sent
	running               // client loop running
	done                  // sent Done: finished normally
	failed                // died, lost, or never joined
)

// slot is one tester as the controller tracks it. Guarded by controller.mu.
type slot struct {
	rec      *rundir.TesterRecord
	state    state
	handle   testbed.Handle
	conn     *protocol.Conn
	deadline time.Time     // when it must be done by; then it is stopped
	stopSent time.Time     // when Stop was sent (zero: not yet)
	ended    chan struct{} // closed when its session has ended (nil: never joined)
	mapper   *clock.Mapper

	// liveness (liveness.go)
	heardNs    atomic.Int64 // when its last frame came (Unix ns; heardFrom, without c.mu)
	heardAwake atomic.Int64 // the same on the controller's awake clock (ns)
	busy       atomic.Bool  // its session is handling a frame, not reading (liveness.go: silentFor)
	lost       bool         // marked failed for its silence; its connection is kept
	lostFlag   atomic.Bool  // lost and not heard since, readable without c.mu
	backAt     time.Time    // when a lost tester was heard again (zero: not yet)
	late       uint64       // samples received after it was lost
	over       bool         // its session has ended
	outq       []outFrame   // frames waiting for its writer
	writing    bool         // a writer goroutine is sending outq
	writeSince time.Time    // when the write in progress began (or was queued; when to check it: nextDue)
	writeNs    atomic.Int64 // when the writer's conn.Write in progress began (Unix ns; 0: none)
	maxSeq     uint64       // the highest sample Seq received (its Seqs come in order)
	lastSent   time.Time    // when a frame to it was last written or queued

	// acknowledgements (liveness.go: ackNow)
	ackSafe uint64    // the highest Seq spooled
	ackSent uint64    // the highest Seq acknowledged
	ackAt   time.Time // when the last acknowledgement went
	ackNext uint64    // an acknowledgement the session writes after its frame (its own goroutine only)

	probeAnswered int64 // when its last probe was answered, Unix ns (its session's goroutine only; probe.go)
	spoolErrSeen  bool  // its spool error was recorded (once)

	udp uint32 // its UDP session id while open (0: none; udp.go)

	claims claims     // what its times and counts are checked against (bounds.go)
	clk    clockTrust // how far its clock syncs can be trusted (clocktrust.go)

	// when it is next due for tending (due.go)
	dueAt  time.Time
	dueIdx int // its index in controller.due; -1: not there
}

func (s *slot) finished() bool { return s.state == done || s.state == failed }

// lastHeard is when s's tester was last heard from.
func (s *slot) lastHeard() time.Time { return time.Unix(0, s.heardNs.Load()) }

// recordFailure marks s failed, with the time and the reason, as event,
// and journals it; false if s had already finished (nothing done).
func (c *controller) recordFailure(s *slot, event, reason string) bool {
	if s.finished() {
		return false
	}
	c.finishSlot(s, failed)
	c.failed++
	s.rec.Failed = true
	s.rec.FailureReason = reason
	s.rec.StopNs = time.Now().UnixNano()
	c.events.Add(event, s.rec.Slot, s.rec.ID, reason)
	c.journal(s)
	return true
}

// finishSlot moves s, not finished, to state st, done or failed. Called
// with c.mu held.
func (c *controller) finishSlot(s *slot, st state) {
	s.state = st
	c.unfinished--
}

// markFailed marks a slot failed once, with the time and the reason.
func (c *controller) markFailed(s *slot, reason string) {
	noteEarly(s, reason)
	if !c.recordFailure(s, "failed", reason) {
		return
	}
	if s.conn != nil {
		s.conn.Close()
	}
	if s.handle != nil {
		_ = s.handle.Kill()
	}
	c.onFailure(s)
}

// launch starts the tester for one slot and watches its process.
func (c *controller) launch(i int) {
	s := c.newSlot(i)
	rec := s.rec
	h, err := c.o.Testbed.Start(c.ctx(), c.spec(rec))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.launched(s, h, err, c.o.JoinTimeout)
}

// newSlot adds the slot for tester i.
func (c *controller) newSlot(i int) *slot {
	rec := &rundir.TesterRecord{Slot: i, LaunchNs: time.Now().UnixNano(), PlannedNs: c.plannedStart(i)}
	s := &slot{rec: rec, mapper: clock.NewMapper(nil), dueIdx: -1}
	c.mu.Lock()
	c.slots = append(c.slots, s)
	c.waiting = append(c.waiting, s)
	c.unfinished++
	c.mu.Unlock()
	return s
}

// spec says how the testbed starts the tester of rec's slot.
func (c *controller) spec(rec *rundir.TesterRecord) testbed.Spec {
	i := rec.Slot
	spec := testbed.Spec{Slot: i, Host: c.ready.HostFor(i), Controller: c.addr, Token: c.token,
		LogPath: c.testerLog(i), Attach: c.attach, TimeServerTCP: c.times.tcpAddr()}
	spec.ExtraArgs = c.injectClock(rec)
	return spec
}

// launched records the outcome of starting slot s's tester, which must
// join within join. Called with c.mu held.
func (c *controller) launched(s *slot, h testbed.Handle, err error, join time.Duration) {
	rec := s.rec
	if err != nil {
		c.markFailed(s, "could not start: "+err.Error())
		return
	}
	s.handle = h
	if s.state == launched && s.conn == nil { // else it joined before the testbed returned
		rec.Host, rec.PID = h.Host(), h.PID()
		if rec.Host != "" || rec.PID != 0 {
			rec.ID = fmt.Sprintf("%s:%d", rec.Host, rec.PID)
		}
		s.deadline = time.Now().Add(join)
	}
	c.poke(s)
	c.events.Add("launched", rec.Slot, rec.ID, "")
	c.journal(s)
	if _, ok := h.(testbed.SharedWait); ok {
		c.sharedWait = append(c.sharedWait, s)
		if len(c.sharedWait) == 1 {
			go c.watchSharedExit(h)
		}
		return
	}
	go c.watchExit(s, h)
}

func (c *controller) testerLog(i int) string {
	return rundir.LogPath(c.o.Dir, i)
}

// exitGrace is how long, after a connected tester exits, the controller
// waits for its session to end before marking it failed by its exit.
const exitGrace = 2 * time.Second

// watchExit waits for the tester process to end. A tester that exits
// before saying Done has failed.
func (c *controller) watchExit(s *slot, h testbed.Handle) {
	err := h.Wait()
	c.exited(s, h, err, time.Now().Add(exitGrace))
}

// watchSharedExit is watchExit for every slot in c.sharedWait, whose
// handles all end with h (testbed.SharedWait): one goroutine, not one per
// tester (a goroutine's stack and descriptor are some 2.5 KB).
func (c *controller) watchSharedExit(h testbed.Handle) {
	err := h.Wait()
	grace := time.Now().Add(exitGrace)
	c.mu.Lock()
	slots := c.sharedWait
	c.mu.Unlock()
	for _, s := range slots {
		c.exited(s, h, err, grace)
	}
}

// exited records that s's tester exited with err, once its session has
// ended or grace has passed.
func (c *controller) exited(s *slot, h testbed.Handle, err error, grace time.Time) {
	c.mu.Lock()
	ended := s.ended
	c.mu.Unlock()
	if ended != nil { // let the session read what the tester said last (its error)
		t := time.NewTimer(time.Until(grace))
		select {
		case <-ended:
		case <-t.C:
		}
		t.Stop()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	detail := "exit status 0"
	if err != nil {
		detail = err.Error()
	}
	if s.state != done {
		c.markFailed(s, "tester exited: "+detail)
		return
	}
	if h.PID() != 0 { // a tester that joined on its own has no process of ours
		c.events.Add("exited", s.rec.Slot, s.rec.ID, detail)
	}
}

// slotFor returns the slot with index i, or nil.
func (c *controller) slotFor(i int) *slot {
	if i < 0 || i >= len(c.slots) {
		return nil
	}
	return c.slots[i]
}
