package tester

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// outbox buffers samples and ships them in batches of at most
// protocol.MaxBatch samples and protocol.MaxBatchBytes encoded bytes, and
// keeps what the controller acknowledged.
type outbox struct {
	conn     *protocol.Conn
	cancel   context.CancelCauseFunc
	mu       sync.Mutex
	pending  []sample.Sample
	bound    int // protocol.SampleBound of pending, summed
	produced uint64
	acked    uint64     // highest sample Seq the controller has spooled
	sendMu   sync.Mutex // one batch on the wire at a time, in order
	buf      []byte
	start    int64                   // local time the client loop started, until sent (0: none pending)
	rtt      int64                   // round trip to the target, ns, sent with start (0: not measured)
	disk     *diskSpool              // where every batch is kept before it is sent (nil: nowhere)
	udp      *udpOut                 // the UDP grant's sender (nil: batches go as TCP frames)
	lag      lagAcc                  // the schedule lags of the calls queued (health_lag.go)
	health   []protocol.HealthSecond // self-health seconds not yet sent (health_send.go)
}

// started queues the Started message for the next flush rather than
// sending it at once: at a synchronized start many testers wake together,
// and every write (and the controller it wakes) would delay the others.
func (o *outbox) started(local int64, targetRTT time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.start, o.rtt = local, int64(targetRTT)
}

func newOutbox(conn *protocol.Conn, cancel context.CancelCauseFunc) *outbox {
	return &outbox{conn: conn, cancel: cancel}
}

// call makes one timed call as client loop client and queues its sample.
func (o *outbox) call(ctx context.Context, c client.Client, clk *clock.Local, client uint32) sample.Status {
	return o.callAt(ctx, c, clk, client, 0)
}

// callAt makes one timed call as client loop client, due at intended
// (local ns; 0 in the closed loop), and queues its sample.
func (o *outbox) callAt(ctx context.Context, c client.Client, clk *clock.Local, client uint32, intended int64) sample.Status {
	start := clk.Now()
	r := c.Call(ctx)
	end := clk.Now() - int64(r.Stopping) // the call ended when it was cut off
	o.add(sample.Sample{Client: client, Start: start, End: end, Intended: intended,
		Status: r.Status, Bytes: r.Bytes, Err: r.Err, Phases: r.Phases, Extras: r.Extras})
	return r.Status
}

// add queues s, numbering it, and flushes when a batch is full.
func (o *outbox) add(s sample.Sample) {
	o.mu.Lock()
	o.produced++
	s.Seq = o.produced
	o.lag.add(&s)
	o.pending = append(o.pending, s)
	o.bound += protocol.SampleBound(&o.pending[len(o.pending)-1])
	full := o.fullLocked()
	o.mu.Unlock()
	if full {
		_ = o.flush()
	}
}

// fullLocked reports whether pending holds a batch's worth.
func (o *outbox) fullLocked() bool {
	return len(o.pending) >= protocol.MaxBatch || o.bound >= protocol.MaxBatchBytes
}

// ack records that the controller spooled every sample up to seq.
func (o *outbox) ack(seq uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.acked = max(o.acked, seq)
}

// counts returns the samples produced and the highest acknowledged Seq.
func (o *outbox) counts() (produced, acked uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.produced, o.acked
}

func (o *outbox) producedCount() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.produced
}

// flush sends everything pending, in as many batches as the caps need;
// each batch is kept in the disk spool before it is sent, and once the
// wire fails the rest still goes to the spool.
func (o *outbox) flush() error {
	o.sendMu.Lock()
	defer o.sendMu.Unlock()
	o.mu.Lock()
	produced, samples := o.produced, o.pending
	o.pending, o.bound = nil, 0
	start, rtt := o.start, o.rtt
	o.start = 0
	health := o.health
	o.health = nil
	o.mu.Unlock()
	var werr error
	if start != 0 {
		werr = o.conn.WriteJSON(protocol.TypeStarted, protocol.Started{LocalNs: start, TargetRTTNs: rtt})
	}
	werr = o.sendHealth(werr, health)
	if o.udp != nil {
		return o.flushUDP(werr, produced, samples)
	}
	for len(samples) > 0 {
		n := protocol.BatchFit(samples)
		o.buf = protocol.AppendBatch(o.buf[:0], &protocol.Batch{Produced: produced, Samples: samples[:n]})
		samples = samples[n:]
		o.disk.batch(o.buf)
		if werr == nil {
			werr = o.conn.Write(protocol.TypeSamples, o.buf)
		}
	}
	if werr != nil {
		o.cancel(fmt.Errorf("%w: %v", ErrLostController, werr))
	}
	return werr
}

// flushUDP sends samples as datagrams, each batch kept in the disk spool
// first; werr is the TCP connection's error so far (Started).
func (o *outbox) flushUDP(werr error, produced uint64, samples []sample.Sample) error {
	for len(samples) > 0 {
		var n int
		var err error
		o.buf, n, err = o.udp.batch(o.buf, produced, samples)
		if err != nil {
			o.cancel(fmt.Errorf("tester: %w", err))
			return err
		}
		o.disk.batch(o.buf)
		samples = samples[n:]
	}
	if werr != nil {
		o.cancel(fmt.Errorf("%w: %v", ErrLostController, werr))
	}
	return werr
}

// udpCounts returns, on a UDP grant, the last datagram sealed and the
// sends that failed (zeros on TCP). Call it after the last flush.
func (o *outbox) udpCounts() (lastSeq, sendErrors uint64) {
	o.sendMu.Lock()
	defer o.sendMu.Unlock()
	if o.udp == nil {
		return 0, 0
	}
	return o.udp.send.LastSeq(), o.udp.sendErrors
}

// flushLoop ships samples every period while the test runs.
func (o *outbox) flushLoop(ctx context.Context, period time.Duration) {
	tickEvery(ctx, period, func() bool {
		_ = o.flush()
		return true
	})
}
