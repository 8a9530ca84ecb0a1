package netprobe

import (
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// countListener counts what its connections receive: the far end's own
// count of a client's bytes, at its socket.
type countListener struct {
	net.Listener
	received *atomic.Uint64
}

func (l countListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countedConn{c, l.received}, nil
}

type countedConn struct {
	net.Conn
	received *atomic.Uint64
}

func (c countedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.received.Add(uint64(n))
	return n, err
}

// A bandwidth test within a byte allowance sends no more than it: the
// server, counting at its socket, received at most the allowance, and the
// result says it was capped and is measured over the bins that got data.
func TestBandwidthStopsAtItsAllowance(t *testing.T) {
	srv, err := NewServer(testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	var received atomic.Uint64
	go func() { _ = srv.Serve(countListener{ln, &received}) }()
	defer ln.Close()
	const allowance = 300_000 // loopback moves that in well under a bin
	r, err := (&Client{Token: testToken}).BandwidthWithin(context.Background(), ln.Addr().String(), time.Second, allowance)
	if err != nil {
		t.Fatal(err)
	}
	if r.Wire.Total() > allowance || r.Sent+MinBytes(KindBandwidth, time.Second, 0) > allowance {
		t.Errorf("traffic %+v, %d bytes of data, for an allowance of %d", r.Wire, r.Sent, allowance)
	}
	waitFor(t, func() bool { return srv.Stats().BandwidthServed == 1 })
	if got := received.Load(); got > r.Wire.Sent {
		t.Errorf("the server received %d bytes, the client counted %d sent", got, r.Wire.Sent)
	}
	if !r.Capped || r.TestTime >= time.Second || r.Bytes != r.Sent {
		t.Errorf("capped %v over %v, %d of %d bytes arrived: want capped, measured over the bins with data, all arrived",
			r.Capped, r.TestTime, r.Bytes, r.Sent)
	}
	if _, err := (&Client{Token: testToken}).BandwidthWithin(context.Background(), ln.Addr().String(), time.Second, 100); !errors.Is(err, ErrAllowance) {
		t.Errorf("an allowance below the test's own messages: %v, want ErrAllowance", err)
	}
}

// mute is a server that takes a bandwidth test and never reports.
func mute(t *testing.T) string {
	t.Helper()
	ln, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		nonce := newNonce()
		raw := make([]byte, RequestSize)
		if _, err := c.Write(nonce); err != nil {
			return
		}
		if _, err := io.ReadFull(c, raw); err != nil {
			return
		}
		_, _ = c.Write(append([]byte{statusOK}, replyMAC(testToken, nonce, raw[:requestBody], statusOK)...))
		_, _ = io.Copy(io.Discard, c)
	}()
	return ln.Addr().String()
}

// A test whose far end never reports fails, and still says what it sent:
// a byte budget counts it.
func TestUnreportedTestCountsItsBytes(t *testing.T) {
	start := time.Now()
	r, err := (&Client{Token: testToken}).BandwidthWithin(context.Background(), mute(t), 200*time.Millisecond, 1<<20)
	if err == nil || r.Wire.Sent < 1<<19 || r.Wire.Total() > 1<<20 {
		t.Errorf("no report: %v, traffic %+v; want an error, and about the 1 MiB allowance counted", err, r.Wire)
	}
	if took := time.Since(start); took > 200*time.Millisecond+AnswerTime(200*time.Millisecond)+time.Second {
		t.Errorf("waited %v for the report", took)
	}
}

// A latency test within a byte allowance stops before the transaction
// that would pass it, and says so.
func TestLatencyStopsAtItsAllowance(t *testing.T) {
	_, addr := startServer(t, nil)
	const allowance = 10_000
	r, err := (&Client{Token: testToken}).LatencyWithin(context.Background(), addr, time.Second, 1, allowance)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Capped || r.Wire.Total() > allowance || r.Wire.Total()+2 <= allowance || r.Transactions < 1 || r.Elapsed >= time.Second {
		t.Errorf("capped %v, traffic %+v, %d transactions in %v: want capped within %d bytes, the last pair not fitting",
			r.Capped, r.Wire, r.Transactions, r.Elapsed, allowance)
	}
}
