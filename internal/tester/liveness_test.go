package tester

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/timeserver"
	"github.com/diperf/diperf/internal/transport"
)

// partitionable is the controller's side of a tester on fake time: it
// admits the tester, sends heartbeats every second, keeps what the tester
// sends, and can be cut off and healed. Cut off, it writes nothing, and
// what it reads is held back, as the network's buffers would hold it,
// until the heal (it must still read: on fake time a writer blocked on a
// pipe would block the others on the connection's lock, which
// testing/synctest cannot wait out).
type partitionable struct {
	conn *protocol.Conn

	mu       sync.Mutex
	cut      bool
	healed   bool
	samples  []receivedSample
	done     *protocol.Done
	hbs      int    // heartbeats received
	spoolErr string // a spool error a heartbeat reported
	open     chan struct{}
	closed   chan struct{} // closed when read returns

	fakeOpts
	probes []time.Time // when each probe (a heartbeat asking for an answer) came
}

// fakeOpts change what the fake controller does.
type fakeOpts struct {
	quiet  bool // sends no heartbeats of its own
	answer bool // answers a probe at once with a heartbeat
	// desc, when set, replaces fakeDesc's test description.
	desc func(timeServer string, duration time.Duration) protocol.TestDesc
}

// receivedSample is one sample as the controller got it.
type receivedSample struct {
	seq  uint64
	end  time.Time // local time = fake time: the tester's clock has no offset
	late bool      // held back by the cut, or sent after the heal
}

// fakeDesc runs `true` every 100 ms for duration, with heartbeats.
func fakeDesc(timeServer string, duration time.Duration) protocol.TestDesc {
	return protocol.TestDesc{Client: protocol.ClientDesc{Kind: protocol.ClientExec, Argv: []string{"true"}},
		DurationNs: int64(duration), IntervalNs: int64(100 * time.Millisecond), TimeoutNs: int64(5 * time.Second),
		SyncIntervalNs: int64(time.Hour), SyncProbes: 1, BatchNs: int64(500 * time.Millisecond),
		TimeServer: timeServer, TimeTransport: "tcp", HeartbeatNs: int64(time.Second)}
}

// startPartitionable starts a time server and the fake controller on net
// and returns it once listening; the tester dials "controller:1".
func startPartitionable(t *testing.T, net *transport.Memory, secret testCred, duration time.Duration) (*partitionable, func()) {
	t.Helper()
	return startFakeController(t, net, secret, duration, fakeOpts{})
}

// startFakeController is startPartitionable with opts.
func startFakeController(t *testing.T, net *transport.Memory, secret testCred, duration time.Duration, opts fakeOpts) (*partitionable, func()) {
	t.Helper()
	if opts.desc == nil {
		opts.desc = fakeDesc
	}
	ts, err := timeserver.Start(timeserver.Options{TCP: "ts:0", ListenTCP: net.Listen})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("controller:1")
	if err != nil {
		t.Fatal(err)
	}
	p := &partitionable{open: make(chan struct{}), closed: make(chan struct{}), fakeOpts: opts}
	go func() {
		defer ln.Close()
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		p.conn = protocol.NewConn(nc)
		if !fakeAdmit(p.conn, secret) || p.conn.WriteJSON(protocol.TypeTestDesc, opts.desc(ts.TCPAddr(), duration)) != nil {
			t.Error("handshake failed")
			p.conn.Close()
			close(p.closed)
			return
		}
		close(p.open)
		if !opts.quiet {
			go p.beat()
		}
		p.read()
	}()
	return p, func() { _ = ts.Stop() }
}

// beat sends a heartbeat every second unless cut off, until the
// connection ends.
func (p *partitionable) beat() {
	for {
		select {
		case <-p.closed:
			return
		case <-time.After(time.Second):
		}
		if p.isCut() {
			continue
		}
		if p.conn.Write(protocol.TypeHeartbeat, nil) != nil {
			return
		}
	}
}

func (p *partitionable) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

func (p *partitionable) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	p.healed = p.healed || !cut
}

// read keeps what the tester sends until Done or the connection ends.
func (p *partitionable) read() {
	defer close(p.closed)
	defer p.conn.Close()
	for {
		typ, b, err := p.conn.Read()
		if err != nil {
			return
		}
		p.mu.Lock()
		late := p.cut || p.healed
		switch typ {
		case protocol.TypeHeartbeat:
			p.hbs++
			var h protocol.Heartbeat
			if len(b) > 0 && protocol.DecodeJSON(typ, b, &h) == nil && h.SpoolError != "" {
				p.spoolErr = h.SpoolError
			}
			p.probed(b)
		case protocol.TypeSamples:
			if batch, err := protocol.DecodeBatch(b); err == nil {
				for _, s := range batch.Samples {
					p.samples = append(p.samples, receivedSample{s.Seq, time.Unix(0, s.End), late})
				}
			}
		case protocol.TypeDone:
			var d protocol.Done
			_ = protocol.DecodeJSON(typ, b, &d)
			p.done = &d
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

// TestCutOffTesterStopsAndHealedSendsTheRest cuts a tester off from its
// controller 5 s into a 60 s test, for 20 s: it sends a probe once the
// controller was silent for 2 s, one only, and when that goes unanswered
// stops its clients within 5 s of the cut (no sample ends later than
// that), keeps its connection,
// and once the controller is heard again sends every sample it had,
// each once and in order, then Done "cut off from the controller". Its
// own spool holds every sample too.
func TestCutOffTesterStopsAndHealedSendsTheRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net, secret := transport.NewMemory(), newTestCred(t)
		p, stop := startPartitionable(t, net, secret, time.Minute)
		defer stop()
		spool := filepath.Join(t.TempDir(), "tester.spool")
		result := make(chan error, 1)
		go func() {
			result <- Run(context.Background(), Options{Controller: "controller:1", Token: secret.tok, Transport: net, SpoolPath: spool})
		}()
		<-p.open
		time.Sleep(5 * time.Second)
		cut := time.Now()
		p.setCut(true)
		time.Sleep(20 * time.Second)
		p.setCut(false)
		if err := <-result; err != nil {
			t.Fatalf("the healed tester ended with %v", err)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.done == nil || p.done.Reason != ReasonCutOff {
			t.Fatalf("done %+v, want reason %q", p.done, ReasonCutOff)
		}
		late := 0
		for i, s := range p.samples {
			if s.seq != uint64(i+1) {
				t.Fatalf("sample %d has seq %d: every sample once, in order", i, s.seq)
			}
			if s.end.After(cut.Add(5 * time.Second)) {
				t.Errorf("sample %d ended %v after the cut: the clients must stop within 5 s", s.seq, s.end.Sub(cut))
			}
			if s.late {
				late++
			}
		}
		checkOneProbe(t, p.probes, cut)
		if uint64(len(p.samples)) != p.done.Produced || late == 0 || p.hbs == 0 {
			t.Errorf("%d samples received (%d after the heal), %d produced, %d heartbeats: want all, some late",
				len(p.samples), late, p.done.Produced, p.hbs)
		}
		t.Logf("%d samples, %d late, %d heartbeats", len(p.samples), late, p.hbs)
		var spooled uint64
		err := rundir.ReadSpool(spool, rundir.SpoolVisitor{Batch: func(_ int, b *protocol.Batch) error {
			for _, s := range b.Samples {
				if s.Seq != spooled+1 {
					t.Errorf("spool: seq %d after %d", s.Seq, spooled)
				}
				spooled = s.Seq
			}
			return nil
		}, Sync: func(int, clock.Record) error { return nil }})
		if err != nil || spooled != p.done.Produced {
			t.Errorf("the tester's spool holds samples 1..%d (%v), want 1..%d", spooled, err, p.done.Produced)
		}
	})
}

// TestCutOffTesterGivesUp cuts the controller off for good: the tester
// stops its clients, waits GiveUpAfter, and exits with ErrLostController.
func TestCutOffTesterGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net, secret := transport.NewMemory(), newTestCred(t)
		p, stop := startPartitionable(t, net, secret, time.Hour)
		defer stop()
		result := make(chan error, 1)
		go func() {
			result <- Run(context.Background(), Options{Controller: "controller:1", Token: secret.tok, Transport: net})
		}()
		<-p.open
		time.Sleep(2 * time.Second)
		cut := time.Now()
		p.setCut(true)
		err := <-result
		took := time.Since(cut)
		if !errors.Is(err, ErrLostController) || !strings.Contains(err.Error(), "gave up") {
			t.Errorf("tester ended with %v, want it to give up", err)
		}
		if took < GiveUpAfter || took > GiveUpAfter+SilenceLimit+time.Second {
			t.Errorf("gave up %v after the cut, want about %v + %v", took, GiveUpAfter, SilenceLimit)
		}
		p.conn.Close()
	})
}

// TestSpoolErrorIsReportedAndTheTestGoesOn gives the tester a spool it
// cannot create: it says so once in a heartbeat and runs to the end,
// every sample over the wire.
func TestSpoolErrorIsReportedAndTheTestGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net, secret := transport.NewMemory(), newTestCred(t)
		p, stop := startPartitionable(t, net, secret, 3*time.Second)
		defer stop()
		var log strings.Builder
		spool := filepath.Join(t.TempDir(), "missing-dir", "tester.spool")
		err := Run(context.Background(), Options{Controller: "controller:1", Token: secret.tok, Transport: net, SpoolPath: spool, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		<-p.open
		time.Sleep(100 * time.Millisecond) // the fake reads to Done
		p.mu.Lock()
		defer p.mu.Unlock()
		if !strings.Contains(p.spoolErr, "creating the sample spool") || strings.Count(log.String(), "over the wire only") != 1 {
			t.Errorf("reported %q, logged %q: want the spool error reported and logged once", p.spoolErr, log.String())
		}
		if p.done == nil || p.done.Reason != "completed" || uint64(len(p.samples)) != p.done.Produced || len(p.samples) < 10 {
			t.Errorf("done %+v with %d samples received, want a completed test with every sample", p.done, len(p.samples))
		}
	})
}
