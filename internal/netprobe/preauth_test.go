package netprobe

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// TestIdleFloodDoesNotStopTests: an outsider keeps more than MaxConns
// idle connections open to a sensor's server, renewing them all the time
// (issue 21: 32 of them, renewed at 6.7 a second, made every test toward
// the sensor fail); a member's bandwidth and latency tests still run.
func TestIdleFloodDoesNotStopTests(t *testing.T) {
	srv, addr := startServer(t, nil)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	flooded := make(chan struct{})
	go flood(ctx, addr, 3*MaxConns, flooded)
	<-flooded
	c := &Client{Token: testToken}
	for range 3 {
		if _, err := c.Bandwidth(ctx, addr, 300*time.Millisecond); err != nil {
			t.Fatalf("bandwidth test during an idle flood: %v", err)
		}
		if _, err := c.Latency(ctx, addr, 200*time.Millisecond, 1); err != nil {
			t.Fatalf("latency test during an idle flood: %v", err)
		}
	}
	if held := srv.pool.Held(); held > MaxUnproved {
		t.Errorf("%d connections not yet proved held, want at most %d", held, MaxUnproved)
	}
	waitStats(t, srv, func(st Stats) bool { return st.BandwidthServed == 3 && st.LatencyServed == 3 })
}

// flood keeps n idle connections to addr open, closing the oldest and
// opening a new one every 10 ms, until ctx ends; flooded is closed once
// n were opened.
func flood(ctx context.Context, addr string, n int, flooded chan struct{}) {
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for i := 0; ctx.Err() == nil; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			open = append(open, c)
		}
		if i == n {
			close(flooded)
		}
		if i >= n {
			open[0].Close()
			open = open[1:]
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestSilentPeerFirstByte: a connection counted among those not yet
// proved that sends nothing is dropped at preauth.FirstByteTimeout, and
// gives its place back; one that sends half a request at handshakeTimeout.
func TestSilentPeerFirstByte(t *testing.T) {
	for _, tc := range []struct {
		name string
		send int
		want time.Duration
	}{{"silent", 0, preauth.FirstByteTimeout}, {"half a request", RequestSize / 2, handshakeTimeout}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { silentPeer(t, tc.send, tc.want) })
		})
	}
}

func silentPeer(t *testing.T, send int, want time.Duration) {
	srv, err := NewServer(testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	defer b.Close()
	e, err := srv.pool.Admit(a)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	start := time.Now()
	go func() { srv.serveConn(a, e); a.Close(); close(done) }()
	if _, err := io.ReadFull(b, make([]byte, NonceSize)); err != nil {
		t.Fatal(err)
	}
	if send > 0 {
		if _, err := b.Write(make([]byte, send)); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if d := time.Since(start); d != want {
		t.Errorf("dropped after %v, want %v", d, want)
	}
	if st, held := srv.Stats(), srv.pool.Held(); st.Refused != 1 || held != 0 {
		t.Errorf("stats %+v, %d held; want one refused, none held", st, held)
	}
	if _, err := b.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("after the drop: %v", err)
	}
}
