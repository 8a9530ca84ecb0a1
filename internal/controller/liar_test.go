package controller

import (
	"context"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/tester"
	"github.com/diperf/diperf/internal/transport"
)

// handshakeAs runs the real tester handshake for a liar: the one call of
// tester.Handshake in these tests, whose arguments change with the
// handshake.
func handshakeAs(conn *protocol.Conn, s testbed.Spec, hello protocol.Hello) (protocol.TestDesc, error) {
	return tester.Handshake(conn, specToken(s), hello)
}

// liar is a tester host that lies: it joins over real TCP with the real
// handshake, syncs and starts honestly, and then sends whatever its test
// makes it send, each frame in the real encoding.
type liar struct {
	t     *testing.T
	conn  *protocol.Conn
	desc  protocol.TestDesc
	seq   uint64        // the last seq made
	acked atomic.Uint64 // the highest seq the controller acknowledged
	ended chan struct{} // closed when the controller hung up
}

// joinLiar joins the controller of spec s, reports an honest clock sync
// (offset 0: its clock is the host's) and its start.
func joinLiar(ctx context.Context, t *testing.T, s testbed.Spec) *liar {
	nc, err := transport.TCP{}.Dial(ctx, s.Controller)
	if err != nil {
		t.Error(err)
		return nil
	}
	l := &liar{t: t, conn: protocol.NewConn(nc), ended: make(chan struct{})}
	hello := protocol.Hello{Proto: protocol.Version, Slot: s.Slot, ID: "liar:1", Host: "liar", PID: 1, Nonce: protocol.NewNonce()}
	if l.desc, err = handshakeAs(l.conn, s, hello); err != nil {
		t.Error(err)
		nc.Close()
		return nil
	}
	go func() { // what the controller says (acks, heartbeats) until it hangs up
		defer close(l.ended)
		for {
			typ, p, err := l.conn.Read()
			if err != nil {
				return
			}
			if seq, err := protocol.ParseAck(p); typ == protocol.TypeAck && err == nil {
				l.acked.Store(max(l.acked.Load(), seq))
			}
		}
	}()
	now := time.Now().UnixNano()
	l.send(protocol.TypeSyncRecord, protocol.SyncRecord{LocalNs: now, RTTNs: 50_000, BoundNs: 25_000})
	l.send(protocol.TypeStarted, protocol.Started{LocalNs: now})
	return l
}

// send sends v as a frame of type typ: a *protocol.Batch in the batch
// encoding, anything else as JSON.
func (l *liar) send(typ protocol.Type, v any) {
	var err error
	if b, ok := v.(*protocol.Batch); ok {
		err = l.conn.Write(typ, protocol.AppendBatch(nil, b))
	} else {
		err = l.conn.WriteJSON(typ, v)
	}
	if err != nil {
		l.t.Errorf("liar: sending %s: %v", typ, err)
	}
}

// honest makes n samples with the next seqs, each a 1 ms call that
// just ended.
func (l *liar) honest(n int) []sample.Sample {
	out := make([]sample.Sample, n)
	for i := range out {
		l.seq++
		now := time.Now().UnixNano()
		out[i] = sample.Sample{Seq: l.seq, Start: now - 1e6, End: now, Status: sample.OK}
	}
	return out
}

// batch sends ss in one batch that says every sample made so far was
// produced.
func (l *liar) batch(ss []sample.Sample) {
	l.send(protocol.TypeSamples, &protocol.Batch{Produced: l.seq, Samples: ss})
}

// waitAcked waits until the controller acknowledged every sample made
// (it has stored them), for at most 10 s.
func (l *liar) waitAcked() {
	for end := time.Now().Add(10 * time.Second); l.acked.Load() < l.seq; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			l.t.Errorf("the controller acknowledged seq %d of %d within 10 s", l.acked.Load(), l.seq)
			return
		}
	}
}

// done sends d, its reason "completed", and waits for the hang-up.
func (l *liar) done(d protocol.Done) {
	d.Reason = "completed"
	l.send(protocol.TypeDone, d)
	<-l.ended
	l.conn.Close()
}

// honestDone is the Done of a liar that tells the truth at its end.
func (l *liar) honestDone() protocol.Done {
	return protocol.Done{LocalNs: time.Now().UnixNano(), Produced: l.seq}
}

// runLiar runs one tester slot played by script, on exp (testExperiment
// when nil) over real TCP on loopback, to the run's end, analysis
// included, and returns the run directory and the tester's record as
// testers.csv reads back.
func runLiar(t *testing.T, exp *experiment.Experiment, script func(l *liar)) (string, *rundir.TesterRecord) {
	t.Helper()
	if exp == nil {
		exp = testExperiment(t, 1, 5*time.Second)
	}
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(nil)
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		if l := joinLiar(ctx, t, s); l != nil {
			script(l)
		}
		return nil
	}
	if _, err := Run(context.Background(), Options{Experiment: exp, Dir: dir, Testbed: tb}); err != nil {
		t.Fatalf("the run did not complete: %v", err)
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil || len(recs) != 1 {
		t.Fatalf("testers.csv does not read back: %v (%d testers)", err, len(recs))
	}
	return dir, recs[0]
}

// udpOf returns a sender of datagrams on l's UDP grant and its socket
// (nil: the test failed).
func udpOf(l *liar) (*protocol.UDPSender, net.Conn) {
	if l.desc.UDP == nil {
		l.t.Error("no UDP grant in the test description")
		return nil, nil
	}
	k, _ := l.conn.Keys()
	snd, err := protocol.NewUDPSender(k, *l.desc.UDP)
	if err != nil {
		l.t.Error(err)
		return nil, nil
	}
	u, err := net.Dial("udp", l.desc.UDP.Addr)
	if err != nil {
		l.t.Error(err)
		return nil, nil
	}
	return snd, u
}
