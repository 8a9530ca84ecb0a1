package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/tester"
)

// loadTester is one tester session of the controller benchmark: a real
// connection doing the real handshake (tester.Handshake) and sending
// samples in the real batch encoding (protocol.BatchFit, AppendBatch, as
// the tester's outbox does), only with no client behind it: the samples
// are made up, rate per second, flushed every batch period as a tester
// flushes its pending samples.
type loadTester struct {
	slot   int
	conn   *protocol.Conn
	desc   protocol.TestDesc
	clk    *clock.Local
	counts *genCounts

	produced uint64
	acked    atomic.Uint64 // highest Seq the controller acknowledged (spooled)
	stopped  atomic.Bool   // the controller sent Stop
	readErr  error         // why the read loop ended (nil: the controller hung up)
	readDone chan struct{}
	samples  []sample.Sample // reused for every batch
	buf      []byte          // reused encoding buffer
	udp      *udpLoad        // the UDP grant's sender (nil: samples over TCP)
}

// genCounts are the generator's totals, read by the progress printer.
type genCounts struct {
	sent   atomic.Uint64 // samples written to a connection
	acked  atomic.Uint64 // samples the controller acknowledged as spooled
	failed atomic.Int64  // sessions that ended in an error
}

// dialTester connects tester slot of n from its source address, runs the
// handshake and reports its clock sync, as a tester does before its
// client loop; it then waits for run.
func dialTester(ctx context.Context, addr string, slot, n int, tok credential.Token, counts *genCounts) (*loadTester, error) {
	nc, err := sourceDialer(slot, n).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tester %d: dial %s from %v: %w", slot, addr, SourceAddr(slot, n), err)
	}
	t := &loadTester{slot: slot, conn: protocol.NewConn(nc), clk: clock.NewLocal(0, 0), counts: counts,
		readDone: make(chan struct{})}
	host := "bench-" + strconv.Itoa(slot)
	hello := protocol.Hello{Proto: protocol.Version, Slot: slot, ID: host + ":1", Host: host, PID: 1, Nonce: protocol.NewNonce()}
	_ = nc.SetReadDeadline(time.Now().Add(60 * time.Second))
	if t.desc, err = tester.Handshake(t.conn, tok, hello); err != nil {
		nc.Close()
		return nil, fmt.Errorf("tester %d: %w", slot, err)
	}
	_ = nc.SetReadDeadline(time.Time{})
	if t.desc.UDP != nil {
		if t.udp, err = newUDPLoad(t); err != nil {
			nc.Close()
			return nil, err
		}
	}
	// A real tester reports each sync with the time server; this one
	// reports a perfect clock, so that the controller maps its samples.
	now := t.clk.Now()
	rec := protocol.SyncRecord{LocalNs: now, OffsetNs: 0, RTTNs: 50_000, BoundNs: 25_000}
	if err := t.conn.WriteJSON(protocol.TypeSyncRecord, rec); err != nil {
		nc.Close()
		return nil, fmt.Errorf("tester %d: %w", slot, err)
	}
	go t.readLoop()
	return t, nil
}

// readLoop takes the controller's acknowledgements, heartbeats and Stop
// until it hangs up.
func (t *loadTester) readLoop() {
	defer close(t.readDone)
	for {
		typ, p, err := t.conn.Read()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				t.readErr = err
			}
			return
		}
		switch typ {
		case protocol.TypeAck:
			if seq, err := protocol.ParseAck(p); err == nil && seq > t.acked.Load() {
				t.counts.acked.Add(seq - t.acked.Swap(seq))
			}
		case protocol.TypeStop:
			t.stopped.Store(true)
		case protocol.TypeError:
			var m protocol.ErrorMsg
			_ = protocol.DecodeJSON(typ, p, &m)
			t.readErr = fmt.Errorf("controller: %s", m.Msg)
			return
		}
	}
}

// run sends rate samples a second from start until start+d, flushing
// every period (at least the test description's batch period), then says
// Done and waits for the controller to hang up.
func (t *loadTester) run(start time.Time, d time.Duration, rate float64) error {
	defer t.conn.Close()
	period := max(time.Duration(t.desc.BatchNs), time.Duration(float64(time.Second)/rate))
	period = min(period, time.Duration(t.desc.HeartbeatNs)) // something every heartbeat period
	if err := t.conn.WriteJSON(protocol.TypeStarted, protocol.Started{LocalNs: t.clk.Now()}); err != nil {
		return err
	}
	// Testers start spread over the first period, as independent
	// testers' flush ticks are.
	next := start.Add(time.Duration(uint64(t.slot) * 0x9E3779B97F4A7C15 % uint64(period)))
	end := start.Add(d)
	for !t.stopped.Load() {
		time.Sleep(time.Until(next))
		now := time.Now()
		if now.After(end) {
			now = end
		}
		due := uint64(rate * now.Sub(start).Seconds())
		if err := t.send(due); err != nil {
			return err
		}
		if !now.Before(end) {
			break
		}
		next = next.Add(period)
	}
	done := protocol.Done{LocalNs: t.clk.Now(), Produced: t.produced, Reason: "completed"}
	if t.udp != nil {
		done.UDPLastSeq, done.UDPSendErrors = t.udp.send.LastSeq(), t.udp.sendErrors
	}
	if err := t.conn.WriteJSON(protocol.TypeDone, done); err != nil {
		return err
	}
	select {
	case <-t.readDone:
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("tester %d: the controller did not hang up within 2 minutes of Done", t.slot)
	}
	return t.readErr
}

// send makes up the samples from produced+1 to due and sends them, as
// many batches as the caps need (a heartbeat when there are none).
func (t *loadTester) send(due uint64) error {
	if due <= t.produced {
		return t.conn.Write(protocol.TypeHeartbeat, nil)
	}
	now := t.clk.Now()
	for t.produced < due {
		n := int(min(due-t.produced, protocol.MaxBatch))
		t.samples = t.samples[:0]
		for k := range n {
			seq := t.produced + uint64(k) + 1
			t.samples = append(t.samples, sample.Sample{Seq: seq, Start: now - 1_000_000, End: now, Status: sample.OK, Bytes: 100})
		}
		if t.udp != nil { // every sample sealed counts as sent: a datagram lost is the controller's to count
			t.produced += uint64(n)
			t.sendUDP()
			t.counts.sent.Add(uint64(n))
			continue
		}
		n = protocol.BatchFit(t.samples)
		t.produced += uint64(n)
		t.buf = protocol.AppendBatch(t.buf[:0], &protocol.Batch{Produced: t.produced, Samples: t.samples[:n]})
		if err := t.conn.Write(protocol.TypeSamples, t.buf); err != nil {
			return fmt.Errorf("tester %d: sending samples: %w", t.slot, err)
		}
		t.counts.sent.Add(uint64(n))
	}
	return nil
}
