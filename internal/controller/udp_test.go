package controller

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/tester"
	"github.com/diperf/diperf/internal/transport"
)

// udpExperiment is testExperiment with controller.transport: udp.
func udpExperiment(t *testing.T, testers int, d time.Duration) *experiment.Experiment {
	e := testExperiment(t, testers, d)
	e.Controller.Transport = experiment.TransportUDP
	return e
}

// TestUDPRunStoresEverySample runs real testers over real TCP and UDP
// sockets on loopback with controller.transport: udp: every sample they
// produced arrives as datagrams and is stored, and testers.csv says so.
func TestUDPRunStoresEverySample(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	o := Options{Experiment: udpExperiment(t, 2, time.Second), Dir: dir, Testbed: newInproc(nil)}
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sent uint64
	for _, r := range recs {
		if !r.UDP || !r.UDPLossExact || r.UDPDatagrams == 0 || r.UDPLost != 0 || r.Lost() != 0 || r.Sent == 0 {
			t.Errorf("tester %d: %+v; want every sample received over UDP, none lost", r.Slot, *r)
		}
		sent += r.Sent
	}
	if out.Samples != sent {
		t.Errorf("%d samples stored, the testers produced %d", out.Samples, sent)
	}
	calls, err := rundir.ReadCalls(dir, func(int32) *clock.Mapper { return clock.NewMapper(nil) })
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(calls)) != sent {
		t.Errorf("samples.parquet has %d rows, the testers produced %d", len(calls), sent)
	}
	seen := map[string]string{}
	for _, e := range events(t, dir) {
		seen[e.Event] = e.Detail
	}
	if !strings.Contains(seen["udp-socket"], "bytes granted") || !strings.Contains(seen["udp-drops"], "auth=0") {
		t.Errorf("events: udp-socket %q, udp-drops %q", seen["udp-socket"], seen["udp-drops"])
	}
	t.Logf("udp-socket: %s; udp-drops: %s", seen["udp-socket"], seen["udp-drops"])
}

// udpFake joins a controller over real TCP, keeps reading its frames
// and returns it with the grant of its test description.
func udpFake(ctx context.Context, t *testing.T, s testbed.Spec) (*fakeTester, *protocol.UDPDesc) {
	nc, err := transport.TCP{}.Dial(ctx, s.Controller)
	if err != nil {
		t.Error(err)
		return nil, nil
	}
	conn := protocol.NewConn(nc)
	hello := protocol.Hello{Proto: protocol.Version, Slot: s.Slot, ID: "fake:1", Nonce: protocol.NewNonce()}
	d, err := tester.Handshake(conn, specToken(s), hello)
	if err != nil || d.UDP == nil {
		t.Errorf("test description: %v, grant %+v", err, d.UDP)
		return nil, nil
	}
	f := &fakeTester{conn: conn, heard: map[protocol.Type]int{}, stop: make(chan struct{}), ended: make(chan struct{})}
	go f.read()
	return f, d.UDP
}

// TestUDPLossCountedExactly has a fake tester seal 10 datagrams of 3
// samples and send all but numbers 3, 7 and 10 (a trailing loss only its
// Done reveals), and number 2 twice: the controller stores the 21 samples
// that came, counts 3 datagrams and 9 samples lost, and 1 duplicate.
func TestUDPLossCountedExactly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(nil)
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		f, g := udpFake(ctx, t, s)
		if f == nil {
			return nil
		}
		k, _ := f.conn.Keys()
		snd, err := protocol.NewUDPSender(k, *g)
		if err != nil {
			t.Error(err)
			return nil
		}
		u, err := net.Dial("udp", g.Addr)
		if err != nil {
			t.Error(err)
			return nil
		}
		defer u.Close()
		f.send(t, protocol.TypeStarted, protocol.Started{LocalNs: time.Now().UnixNano()})
		var produced uint64
		for i := 1; i <= 10; i++ {
			var ss []sample.Sample
			for range 3 {
				produced++
				now := time.Now().UnixNano()
				ss = append(ss, sample.Sample{Seq: produced, Start: now - 1e6, End: now})
			}
			d, n, err := snd.SealBatch(produced, ss)
			if err != nil || n != 3 {
				t.Errorf("seal: %d samples, %v", n, err)
			}
			if i == 3 || i == 7 || i == 10 {
				continue
			}
			_, _ = u.Write(d)
			if i == 2 {
				_, _ = u.Write(d)
			}
		}
		f.send(t, protocol.TypeDone, protocol.Done{LocalNs: time.Now().UnixNano(), Produced: produced, Reason: "completed",
			UDPLastSeq: snd.LastSeq()})
		<-f.ended
		f.conn.Close()
		return nil
	}
	o := Options{Experiment: udpExperiment(t, 1, 30*time.Second), Dir: dir, Testbed: tb}
	c, err := conductOnly(t, o)
	if err != nil {
		t.Fatal(err)
	}
	r := c.slots[0].rec
	if r.Received != 21 || r.Sent != 30 || r.Lost() != 9 {
		t.Errorf("samples: received %d sent %d lost %d; want 21, 30, 9", r.Received, r.Sent, r.Lost())
	}
	if r.UDPDatagrams != 7 || r.UDPLost != 3 || r.UDPDuplicates != 1 || !r.UDPLossExact || r.Failed {
		t.Errorf("datagrams: %+v; want 7 received, 3 lost (exact), 1 duplicate, not failed", *r)
	}
	if e := eventAt(t, dir, "udp-loss", 0); e.Detail != "3 of 10 datagrams lost (0 send errors)" {
		t.Errorf("udp-loss event %q", e.Detail)
	}
}

// TestAwaitMissing waits on fake time: until nothing is missing, or no
// longer than the grace period.
func TestAwaitMissing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		missing := func() uint64 {
			if time.Since(start) < 300*time.Millisecond {
				return 2
			}
			return 0
		}
		awaitMissing(missing, time.Second, time.Sleep)
		if w := time.Since(start); w < 300*time.Millisecond || w > 300*time.Millisecond+udpPoll {
			t.Errorf("waited %v for the last datagrams, arrived after 300ms", w)
		}
		start = time.Now()
		awaitMissing(func() uint64 { return 1 }, time.Second, time.Sleep)
		if w := time.Since(start); w != time.Second {
			t.Errorf("waited %v for datagrams that never come; want the grace, 1s", w)
		}
	})
}
