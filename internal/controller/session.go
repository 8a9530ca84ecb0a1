package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/preauth"
	"github.com/diperf/diperf/internal/protocol"
)

// handshakeTimeout bounds how long a connection may take to prove itself
// once it sent its first byte, and how long one may wait for its turn to
// (maxHandshakes).
const handshakeTimeout = 10 * time.Second

// maxHandshakes caps the connections in the handshake at once: past it,
// a connection that spoke waits its turn, unanswered. Each holds a 16 KiB
// read buffer once its first byte came (16 MiB for all); a source holds at
// most maxHandshakesPerSource of them, so that peers that send a byte and
// then nothing need 64 source addresses to hold them all.
const maxHandshakes = 1024

// serve handles one tester connection from handshake to hang-up; e is
// its place among the connections not yet proved (nil: one the testbed
// opened). Anything malformed drops this connection only.
func (c *controller) serve(nc net.Conn, g *guard, e *preauth.Entry) {
	defer nc.Close()
	hc, release, ok := c.beforeHandshake(nc, g, e)
	if !ok {
		return
	}
	conn := protocol.NewConn(hc)
	s, err := c.admit(conn)
	release()
	if err != nil {
		_ = nc.SetWriteDeadline(time.Now().Add(time.Second)) // a peer that reads nothing cannot hold us
		var full *slotsTakenError
		_ = conn.WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: err.Error(), Full: errors.As(err, &full)})
		if nc.RemoteAddr().String() != c.selfCheck || s != nil {
			g.rejects.reject(nc.RemoteAddr(), err)
		}
		if s != nil { // admitted, but the test description could not be sent
			c.udpEnd(s)
			c.mu.Lock()
			c.markFailed(s, admitFailure(err))
			close(s.ended)
			c.mu.Unlock()
		}
		return
	}
	err = c.session(conn, s)
	c.times.dropKey(s.rec.Slot) // its syncs are over
	c.enter()
	defer c.leave()
	c.udpEnd(s) // a session that ended without Done
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(s.ended)
	c.sessionOver(s)
	var reported *reportedError
	switch {
	case s.state == done:
	case errors.As(err, &reported) && s.state == failed:
		// the process exit was seen first: keep the tester's own reason too
		s.rec.FailureReason = err.Error() + "; " + s.rec.FailureReason
		c.events.Add("tester-error", s.rec.Slot, s.rec.ID, err.Error())
		c.journal(s)
	case errors.As(err, &reported):
		c.markFailed(s, err.Error())
	default:
		reason := "lost connection"
		if err != nil && !errors.Is(err, io.EOF) {
			reason += ": " + err.Error()
		}
		c.markFailed(s, reason)
	}
}

// reportedError is a tester's own fatal error, sent before it exited.
type reportedError struct{ msg string }

func (e *reportedError) Error() string { return "tester reported: " + e.msg }

// admit runs the handshake (protocol.Admit: the tester proves it holds
// the run's secret, then the controller signs with the run's key, both
// bound to the slot, the tester id, the run, both nonces and both key
// shares), secures the connection with the session keys and binds it to
// the slot the tester was launched for.
func (c *controller) admit(conn *protocol.Conn) (*slot, error) {
	_ = conn.SetReadDeadline(time.Now().Add(handshakeTimeout))
	h, err := protocol.Admit(conn, c.cred)
	if err != nil {
		return nil, err
	}
	_ = conn.SetReadDeadline(time.Time{})
	return c.bind(conn, h)
}

func (c *controller) bind(conn *protocol.Conn, h protocol.Hello) (*slot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slotFor(h.Slot)
	if h.Slot == protocol.AnySlot {
		s = c.waitingSlot()
	}
	if s == nil || s.state != launched || s.conn != nil {
		if h.Slot == protocol.AnySlot {
			return nil, &slotsTakenError{len(c.slots)}
		}
		return nil, fmt.Errorf("no tester slot %d is waiting to join", h.Slot)
	}
	s.conn = conn
	s.ended = make(chan struct{})
	s.state = joined
	s.claims.begin(time.Now(), c.exp.Schedule.ClientsPerTester, c.exp.Sync.Server != "")
	s.heardNs.Store(time.Now().UnixNano())
	s.lastSent = time.Now()
	c.poke(s)
	s.rec.ID, s.rec.Host, s.rec.PID = h.ID, h.Host, h.PID
	from := time.Now()
	if s.rec.PlannedNs != 0 {
		from = time.Unix(0, max(s.rec.PlannedNs, from.UnixNano()))
	}
	s.deadline = from.Add(c.testerBudget())
	c.events.Add("admitted", s.rec.Slot, h.ID, conn.RemoteAddr().String())
	c.journal(s)
	d := c.testDesc()
	d.StartAtNs = s.rec.PlannedNs
	d.Slot = s.rec.Slot
	d.Rate = rateDesc(c.exp, s.rec.Slot)
	if err := c.steerDesc(h, &d); err != nil {
		return s, err
	}
	c.giveTimeKey(s, &d, conn)
	var err error
	if d.UDP, err = c.udpGrant(s, conn); err != nil {
		return s, err
	}
	return s, conn.WriteJSON(protocol.TypeTestDesc, d)
}

// waitingSlot returns the first slot still waiting for its tester, or
// nil: the head of c.waiting once those no longer waiting are dropped
// (a slot never waits again), O(1) amortized. Called with c.mu held.
func (c *controller) waitingSlot() *slot {
	for len(c.waiting) > 0 {
		if s := c.waiting[0]; s.state == launched && s.conn == nil {
			return s
		}
		c.waiting[0] = nil
		c.waiting = c.waiting[1:]
	}
	return nil
}

// testerBudget is how long a tester may take from joining to Done.
func (c *controller) testerBudget() time.Duration {
	e := c.exp
	budget := e.Schedule.TesterDuration.D() + e.Client.Timeout.D() + c.o.JoinTimeout + c.clientsStopping()
	if r := e.Schedule.Rate; r != nil {
		budget += r.MaxLateness.D() // an open-model call may wait this long for a client
	}
	return budget
}

func (c *controller) testDesc() protocol.TestDesc {
	e := c.exp
	cl := c.client
	if c.o.Client != nil {
		cl = *c.o.Client
	}
	return protocol.TestDesc{
		Target: e.Target, Client: cl,
		DurationNs: int64(e.Schedule.TesterDuration.D()), IntervalNs: int64(e.Schedule.ClientInterval.D()),
		TimeoutNs: int64(e.Client.Timeout.D()), SyncIntervalNs: int64(e.Sync.Interval.D()),
		SyncProbes: e.Sync.Probes, BatchNs: int64(c.cad.batch),
		TimeServer: c.times.addr, TimeTransport: e.Sync.Transport, HeartbeatNs: int64(c.cad.heartbeat),
		SilenceNs:        int64(c.cad.lostAfter),
		ClientsPerTester: e.Schedule.ClientsPerTester, ClientStartIntervalNs: int64(e.Schedule.ClientStartInterval.D()),
		Health: true,
	}
}

// session reads the tester's messages until it says Done or goes away.
func (c *controller) session(conn *protocol.Conn, s *slot) error {
	c.listening(s) // its silence counts from here, on the awake clock too
	for {
		t, p, err := conn.Read()
		if err != nil {
			return err
		}
		c.heardFrom(s)
		if t == protocol.TypeHeartbeat { // at once, without the gate: a busy controller still answers
			c.onHeartbeat(s, p)
			continue
		}
		s.busy.Store(true) // not reading meanwhile: the tester is not silent (silentFor)
		c.enter()
		end, err := c.handle(s, t, p)
		c.leave()
		c.listening(s)
		if err != nil {
			return err
		}
		if s.ackNext != 0 { // outside the gate: a write may block on a slow tester
			ack := s.ackNext
			s.ackNext = 0
			if err := writeAck(s.conn, ack); err != nil {
				return err
			}
		}
		if end {
			return c.flushAck(s)
		}
	}
}

// handle applies one message; end is true after Done.
func (c *controller) handle(s *slot, t protocol.Type, p []byte) (end bool, err error) {
	switch t {
	case protocol.TypeHeartbeat:
		c.onHeartbeat(s, p)
		return false, nil
	case protocol.TypeSamples:
		return false, c.onSamples(s, p)
	case protocol.TypeHealth:
		return false, c.onHealth(s, p)
	case protocol.TypeSyncRecord:
		var r protocol.SyncRecord
		if err := protocol.DecodeJSON(t, p, &r); err != nil {
			return false, err
		}
		c.noteSync(s, r)
		err := c.onSync(s, clock.Record{LocalNs: r.LocalNs, OffsetNs: r.OffsetNs, RTTNs: r.RTTNs, BoundNs: r.BoundNs})
		c.searchSynced(s)
		return false, err
	case protocol.TypeStarted:
		var m protocol.Started
		if err := protocol.DecodeJSON(t, p, &m); err != nil {
			return false, err
		}
		c.onStarted(s, m)
		return false, nil
	case protocol.TypeDone:
		var m protocol.Done
		if err := protocol.DecodeJSON(t, p, &m); err != nil {
			return false, err
		}
		d := c.checkDone(s, m)
		c.udpDone(s, d) // its datagrams in flight first: Done may overtake them
		c.onDone(s, d)
		return true, nil
	case protocol.TypeError:
		var m protocol.ErrorMsg
		_ = protocol.DecodeJSON(t, p, &m)
		return false, &reportedError{m.Msg}
	}
	return false, fmt.Errorf("unexpected %s message from a tester", t)
}

func (c *controller) onSamples(s *slot, p []byte) error {
	b, err := protocol.DecodeBatch(p)
	if err != nil {
		return err
	}
	ack, err := c.ingest(s, p, b, true)
	if err != nil {
		return err
	}
	s.ackNext = max(s.ackNext, ack) // written by the session once it left the gate
	return nil
}

// ingest takes s's batch b, encoded as p, whether it came in a TCP frame
// or a datagram: spooled, counted, in the live statistics. With acks (TCP)
// it returns the Seq to acknowledge now (0: none yet). Safe to call from
// s's session and from the UDP reader at once.
func (c *controller) ingest(s *slot, p []byte, b *protocol.Batch, acks bool) (ack uint64, err error) {
	now := time.Now()
	v := s.claims.batch(b, now.UnixNano()) // what is impossible or came before is never stored
	if v.changed {
		p = protocol.AppendBatch(nil, &protocol.Batch{Produced: v.produced, Samples: v.kept})
	}
	if len(v.kept) > 0 || v.produced > 0 { // a batch wholly refused leaves nothing to keep
		if err := c.spool.Samples(s.rec.Slot, p, v.kept); err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
	}
	c.mu.Lock()
	c.refuse(s, v.refused)
	s.rec.Received += uint64(len(v.kept))
	s.rec.Sent = max(s.rec.Sent, v.produced)
	if v.maxSeq > 0 {
		s.maxSeq = max(s.maxSeq, v.maxSeq)
		if acks { // only now is the batch safe: tell the tester so, at most every ackEvery
			ack, _ = c.ackNow(s, v.maxSeq, now)
		}
	}
	if s.lost {
		s.late += uint64(len(v.kept))
	}
	m := s.mapper
	c.mu.Unlock()
	if !acks { // an authentic datagram is a sign of life, as a frame is
		c.heardFrom(s)
	}
	c.live.Add(s.rec.Slot, v.kept, v.produced, m)
	return ack, nil
}

// flushAck acknowledges, before s's session ends, what was spooled since
// its last acknowledgement.
func (c *controller) flushAck(s *slot) error {
	c.mu.Lock()
	ack, _ := c.ackPending(s)
	c.mu.Unlock()
	return writeAck(s.conn, ack)
}

// writeAck writes an acknowledgement of every sample up to seq (0: none
// to write).
func writeAck(conn *protocol.Conn, seq uint64) error {
	if seq == 0 {
		return nil
	}
	var b [protocol.AckSize]byte
	if err := conn.Write(protocol.TypeAck, protocol.AppendAck(b[:0], seq)); err != nil {
		return fmt.Errorf("acknowledging samples: %w", err)
	}
	return nil
}

// onHeartbeat takes what a heartbeat asks or reports besides life: a
// probe, answered at once (answerProbe), and a tester's spool error.
// Called by s's session outside the gate.
func (c *controller) onHeartbeat(s *slot, p []byte) {
	if len(p) == 0 {
		return
	}
	var h protocol.Heartbeat
	if err := protocol.DecodeJSON(protocol.TypeHeartbeat, p, &h); err != nil {
		return
	}
	if h.Probe != 0 {
		c.answerProbe(s, h.Probe)
	}
	if h.SpoolError == "" {
		return
	}
	c.enter()
	defer c.leave()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !s.spoolErrSeen { // a tester reports it once: more is noise
		s.spoolErrSeen = true
		c.events.Add("spool-error", s.rec.Slot, s.rec.ID, "the tester's own spool: "+reasonText(h.SpoolError))
	}
}

func (c *controller) onSync(s *slot, r clock.Record) error {
	if err := s.claims.sync(r, time.Now().UnixNano()); err != nil {
		c.refuseMessage(s, err)
		if errors.Is(err, errSyncJump) { // its clock's syncs are suspect too
			c.mu.Lock()
			s.rec.ClockSyncsRefused++
			c.clockSuspect(s, err.Error()+": refused")
			c.mu.Unlock()
		}
		return nil
	}
	c.mu.Lock()
	if !c.clockAgrees(s, r) { // refused and counted: it disagrees with the syncs before it
		c.mu.Unlock()
		return nil
	}
	s.rec.Syncs = append(s.rec.Syncs, r)
	s.mapper = clock.NewMapper(s.rec.Syncs)
	c.mu.Unlock()
	c.live.Sync(s.rec.Slot, r)
	return c.spool.Sync(s.rec.Slot, r)
}

func (c *controller) onStarted(s *slot, m protocol.Started) {
	now := time.Now().UnixNano()
	timeErr := s.claims.localTime("Started", m.LocalNs, now)
	if timeErr != nil {
		c.refuseMessage(s, timeErr)
	}
	if err := s.claims.duration("Started's target round trip", m.TargetRTTNs, now); err != nil {
		c.refuseMessage(s, err)
		m.TargetRTTNs = 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !s.finished() {
		s.state = running
	}
	s.rec.StartNs = now // an impossible start is taken as when it was heard
	if timeErr == nil {
		s.rec.StartNs = s.mapper.Global(m.LocalNs)
	}
	s.rec.TargetRTTNs = m.TargetRTTNs
	c.events.Add("started", s.rec.Slot, s.rec.ID, "client loop started")
	c.journal(s)
}

func (c *controller) onDone(s *slot, m checkedDone) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.rec.Sent = max(s.rec.Sent, m.Produced)
	m.Reason = reasonText(m.Reason)
	// Its client loop ended early, and not on a Stop ("stopped" after
	// Stop was sent; a cut-off tester stopped before it came):
	early := m.Reason != reasonCompleted && (m.Reason != stoppedEarly || s.stopSent.IsZero())
	if s.finished() { // lost, and heard again: it stays failed, stopped when it was lost
		if early {
			s.rec.StoppedEarly, s.rec.StopReason = true, m.Reason
		}
		c.events.Add("stopped", s.rec.Slot, s.rec.ID, m.Reason)
		c.journal(s)
		return
	}
	if m.Reason == stoppedEarly && early { // its host stopped it
		c.markFailed(s, "stopped before its time without being told to (a signal on its host, e.g. its job cancelled)")
		return
	}
	if early { // e.g. cut off from the controller: a failure (stopped_early)
		c.failedEarly(s, m.Reason)
		return
	}
	c.finishSlot(s, done)
	s.rec.StopNs = m.heardNs // an impossible stop is taken as when it was heard
	if m.timeOK {
		s.rec.StopNs = s.mapper.Global(m.LocalNs)
	}
	c.events.Add("stopped", s.rec.Slot, s.rec.ID, m.Reason)
	c.journal(s)
}

// stoppedEarly is the reason a tester's Done gives when its client loop
// was stopped rather than run to its end: unless the controller sent Stop,
// something on its host stopped it (a SIGTERM, a cancelled Slurm job).
const stoppedEarly = "stopped"

// closeSessions hangs up on every tester still connected.
func (c *controller) closeSessions() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.slots {
		if s.conn != nil {
			s.conn.Close()
		}
	}
}

// ctx is a never-cancelled context for testbed calls made while the run
// is already being torn down.
func (c *controller) ctx() context.Context { return context.Background() }

// slotsTakenError is a tester that joined for any slot when every slot
// is taken: it is told so (protocol.ErrorMsg.Full) and exits 0.
type slotsTakenError struct{ slots int }

func (e *slotsTakenError) Error() string {
	return fmt.Sprintf("no tester slot is waiting to join: all %d are taken", e.slots)
}
