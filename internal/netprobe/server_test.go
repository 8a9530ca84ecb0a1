package netprobe

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"testing/synctest"
	"time"
)

// startServer serves on a loopback port until the test ends.
func startServer(t *testing.T, slot *Slot) (*Server, string) {
	t.Helper()
	srv, err := NewServer(testToken, slot)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ln.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return srv, ln.Addr().String()
}

func listenLoopback() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

func TestBandwidthLoopback(t *testing.T) {
	srv, addr := startServer(t, nil)
	c := &Client{Token: testToken}
	r, err := c.Bandwidth(context.Background(), addr, 450*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.TestTime != 500*time.Millisecond || len(r.Bins) != 5 {
		t.Errorf("test time %v in %d bins; want 500ms (rounded up to whole bins) in 5", r.TestTime, len(r.Bins))
	}
	if r.Bytes == 0 || r.Bytes > r.Sent {
		t.Errorf("received %d bytes of %d sent", r.Bytes, r.Sent)
	}
	if want := float64(r.Bytes) * 8 / 0.5; r.BitsPerSec != want {
		t.Errorf("BitsPerSec = %.0f, want bytes·8/test time = %.0f", r.BitsPerSec, want)
	}
	if r.SteadyBitsPerSec <= 0 || r.SteadyFrom >= r.TestTime {
		t.Errorf("steady part %.0f bit/s from %v", r.SteadyBitsPerSec, r.SteadyFrom)
	}
	t.Logf("loopback: %.2f Gbit/s, steady %.2f Gbit/s from %v", r.BitsPerSec/1e9, r.SteadyBitsPerSec/1e9, r.SteadyFrom)
	waitStats(t, srv, func(st Stats) bool { return st == Stats{BandwidthServed: 1} })
}

func TestLatencyLoopback(t *testing.T) {
	srv, addr := startServer(t, nil)
	c := &Client{Token: testToken}
	r, err := c.Latency(context.Background(), addr, 300*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Transactions < 10 || r.Elapsed < 300*time.Millisecond {
		t.Errorf("%d transactions in %v", r.Transactions, r.Elapsed)
	}
	if !near(r.PerSec, float64(r.Transactions)/r.Elapsed.Seconds(), 1e-9) || !near(float64(r.Latency), 1e9/r.PerSec, 1e-4) {
		t.Errorf("%.0f transactions/s, latency %v: not n/elapsed and its inverse", r.PerSec, r.Latency)
	}
	if r.P50 <= 0 || r.P50 > r.P90 || r.P90 > r.P99 {
		t.Errorf("percentiles p50 %v p90 %v p99 %v", r.P50, r.P90, r.P99)
	}
	t.Logf("loopback: %.0f transactions/s, latency %v, p50 %v p90 %v p99 %v", r.PerSec, r.Latency, r.P50, r.P90, r.P99)
	waitStats(t, srv, func(st Stats) bool { return st.LatencyServed == 1 })
}

// waitStats waits for the server's handler to record what the client saw.
func waitStats(t *testing.T, srv *Server, ok func(Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(srv.Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", srv.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBusy(t *testing.T) {
	slot := &Slot{}
	srv, addr := startServer(t, slot)
	c := &Client{Token: testToken}
	ctx := context.Background()

	// The host's own sensor runs a bandwidth test: peers are refused.
	if !slot.TryAcquire() {
		t.Fatal("a new slot is held")
	}
	if _, err := c.Bandwidth(ctx, addr, Bin); !errors.Is(err, ErrBusy) {
		t.Fatalf("bandwidth test while the slot is held: err = %v, want ErrBusy", err)
	}
	if _, err := c.Latency(ctx, addr, Bin, 1); err != nil {
		t.Errorf("latency tests are not refused while busy: %v", err)
	}
	slot.Release()

	// The server is the far end of one test: a second is refused, and the
	// host's sensor cannot start its own.
	first := make(chan error, 1)
	go func() { _, err := c.Bandwidth(ctx, addr, 500*time.Millisecond); first <- err }()
	waitFor(t, slot.Held)
	if slot.TryAcquire() {
		t.Error("the daemon took the slot while its server received a test")
	}
	if _, err := c.Bandwidth(ctx, addr, Bin); !errors.Is(err, ErrBusy) {
		t.Errorf("second concurrent bandwidth test: err = %v, want ErrBusy", err)
	}
	if err := <-first; err != nil {
		t.Fatalf("first test: %v", err)
	}
	waitFor(t, func() bool { return !slot.Held() })
	if _, err := c.Bandwidth(ctx, addr, Bin); err != nil {
		t.Fatalf("after the slot is free: %v", err)
	}
	waitStats(t, srv, func(st Stats) bool { return st == Stats{BandwidthServed: 2, LatencyServed: 1, Busy: 2} })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWrongToken(t *testing.T) {
	srv, addr := startServer(t, nil)
	c := &Client{Token: []byte("not-the-mesh-token-at-all-0123")}
	_, err := c.Bandwidth(context.Background(), addr, Bin)
	if err == nil || errors.Is(err, ErrBusy) {
		t.Fatalf("bandwidth test without the token: err = %v", err)
	}
	// A raw peer gets the nonce, then, whatever it sends, a closed connection.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	nonce := make([]byte, NonceSize)
	if _, err := io.ReadFull(conn, nonce); err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, RequestSize)
	copy(junk, "DNP1\x01\x00")
	if _, err := conn.Write(junk); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := conn.Read(make([]byte, 64)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("after a request without proof: read %d bytes, %v; want a closed connection", n, err)
	}
	waitStats(t, srv, func(st Stats) bool { return st == Stats{Refused: 2} })
	// A server with another token runs no test for the client.
	impostor, iaddr := startServer(t, nil)
	impostor.token = []byte("the-impostor-token-0123456789")
	if _, err := (&Client{Token: testToken}).Latency(context.Background(), iaddr, Bin, 1); err == nil {
		t.Error("a server without the token was trusted")
	}
}

// TestStalledPeer: a peer that connects and sends nothing (or half a
// request) is dropped after the handshake timeout, on fake time.
func TestStalledPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, err := NewServer(testToken, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := net.Pipe()
		defer b.Close()
		done := make(chan struct{})
		start := time.Now()
		go func() { srv.handle(a); a.Close(); close(done) }()
		if _, err := io.ReadFull(b, make([]byte, NonceSize)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Write(make([]byte, RequestSize/2)); err != nil {
			t.Fatal(err)
		}
		<-done
		if d := time.Since(start); d != handshakeTimeout {
			t.Errorf("dropped after %v, want %v", d, handshakeTimeout)
		}
		if st := srv.Stats(); st.Refused != 1 {
			t.Errorf("stats %+v, want one refused", st)
		}
	})
}

// TestCancel: the caller's context ends a test at once.
func TestCancel(t *testing.T) {
	_, addr := startServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := (&Client{Token: testToken}).Bandwidth(ctx, addr, 10*time.Second)
	if err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled after 200ms: err %v after %v", err, time.Since(start))
	}
}

func TestNewServerToken(t *testing.T) {
	if _, err := NewServer([]byte("short"), nil); err == nil {
		t.Error("a 5-byte token was accepted")
	}
}
