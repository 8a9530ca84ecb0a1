package tester

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/timeserver"
	"github.com/diperf/diperf/internal/transport"
)

// steerLog is what the fake controller of TestSteerOverLoopback saw.
type steerLog struct {
	steerable bool
	started   int64   // the tester's loop start, local ns
	intended  []int64 // every call's intended start, local ns
	done      protocol.Done
}

// steeringController admits one tester on ln with desc, waits for its
// first clock sync, sends it steps (each with its instant made from
// desc.StartAtNs plus the AtNs given), and keeps what it sends until Done.
func steeringController(ln net.Listener, c testCred, desc protocol.TestDesc, steps []protocol.LoadStep) (steerLog, error) {
	var got steerLog
	nc, err := ln.Accept()
	if err != nil {
		return got, err
	}
	conn := protocol.NewConn(nc)
	defer conn.Close()
	hello, err := protocol.Admit(conn, protocol.Controller{Secret: c.tok.Secret, Key: c.key, Run: "test"})
	if err != nil {
		return got, err
	}
	got.steerable = hello.Steerable
	if err := conn.WriteJSON(protocol.TypeTestDesc, desc); err != nil {
		return got, err
	}
	for {
		typ, p, err := conn.Read()
		if err != nil {
			return got, err
		}
		if typ == protocol.TypeSyncRecord {
			for _, s := range steps {
				s.AtNs += desc.StartAtNs
				if err := conn.WriteJSON(protocol.TypeLoad, s); err != nil {
					return got, err
				}
			}
			steps = nil
		}
		if over, err := got.keep(typ, p); over || err != nil {
			return got, err
		}
	}
}

// keep notes what a frame of the tester says; over at its Done.
func (l *steerLog) keep(typ protocol.Type, p []byte) (over bool, err error) {
	switch typ {
	case protocol.TypeSamples:
		b, err := protocol.DecodeBatch(p)
		for _, s := range b.Samples {
			l.intended = append(l.intended, s.Intended)
		}
		return false, err
	case protocol.TypeStarted:
		var st protocol.Started
		err := protocol.DecodeJSON(typ, p, &st)
		l.started = st.LocalNs
		return false, err
	case protocol.TypeDone:
		return true, protocol.DecodeJSON(typ, p, &l.done)
	}
	return false, nil
}

// steeredDesc is a steered open model of null calls, 10 calls/s over 3 s
// from a second from now, with 4 clients.
func steeredDesc(timeServer string) protocol.TestDesc {
	return protocol.TestDesc{Client: protocol.ClientDesc{Kind: protocol.ClientNull}, DurationNs: int64(3 * time.Second),
		TimeoutNs: int64(time.Second), SyncIntervalNs: int64(time.Hour), SyncProbes: 4, BatchNs: int64(200 * time.Millisecond),
		TimeServer: timeServer, TimeTransport: "tcp", StartAtNs: time.Now().Add(time.Second).UnixNano(),
		ClientsPerTester: 4, Rate: constant(protocol.ArrivalsUniform, 10, 3*time.Second), Steered: true}
}

// TestSteerOverLoopback: a tester over a real loopback connection, its
// open model stepped by its controller from 10 calls/s to 50 at 1 s and
// to 20 at 2 s, makes 10, 50 and 20 calls in its three seconds
// (uniform arrivals: exactly, the steps' instants mapped through its
// clock sync; fewer in the first when it woke late); it takes the two steps and refuses, and counts, a third
// sent out of order.
func TestSteerOverLoopback(t *testing.T) {
	t.Parallel()
	ts, err := timeserver.Start(timeserver.Options{TCP: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ts.Stop() }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cred := newTestCred(t)
	desc := steeredDesc(ts.TCPAddr())
	steps := []protocol.LoadStep{{Seq: 1, AtNs: int64(time.Second), Rate: 50}, {Seq: 1, AtNs: int64(1500 * time.Millisecond), Rate: 99},
		{Seq: 2, AtNs: int64(2 * time.Second), Rate: 20}}
	res := make(chan error, 1)
	var got steerLog
	go func() { var err error; got, err = steeringController(ln, cred, desc, steps); res <- err }()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := Run(ctx, Options{Controller: ln.Addr().String(), Token: cred.tok, Transport: transport.TCP{}}); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if !got.steerable || got.started == 0 {
		t.Fatalf("Hello steerable %v, loop start %d: want a steerable tester that started", got.steerable, got.started)
	}
	// The steps are at instants of the global timeline: bin the calls
	// from the start instant (the tester's clock is the time server's, to
	// the sync's error). A tester that woke late on a busy machine starts
	// its arrivals then: its first second has fewer calls, the steps'
	// seconds the same.
	var perSecond [3]int
	for _, at := range got.intended {
		if d := at - desc.StartAtNs; d >= 0 && d < 3e9 {
			perSecond[d/1e9]++
		}
	}
	late := time.Duration(got.started - desc.StartAtNs)
	least := int(10*(time.Second-late).Seconds()) - 1
	if perSecond[0] > 10 || perSecond[0] < least || perSecond[1] != 50 || perSecond[2] != 20 {
		t.Errorf("calls per second %v (the tester started %v late), want [%d..10 50 20]", perSecond, late, least)
	}
	d := got.done
	if d.LoadSteps != 2 || d.LoadRefused != 1 || !strings.Contains(d.LoadRefusedWhy, "out of order") {
		t.Errorf("Done: %d steps taken, %d refused (%q); want 2, and 1 out of order", d.LoadSteps, d.LoadRefused, d.LoadRefusedWhy)
	}
}
