package netsim

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// dialTCP connects to addr, closed at cleanup.
func dialTCP(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn)
}

// TestTCPEchoRoundTrip checks, on a manual clock, that each chunk of a
// round trip through the proxy is held for its direction's base delay
// plus its own draw from the connection's seeded stream.
func TestTCPEchoRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    Path
	}{
		// The brief's case: 10 ms each way, no jitter.
		{"up10 down10", Path{Up: Delay{Base: 10 * ms}, Down: Delay{Base: 10 * ms}}},
		// Jitter on both directions.
		{"up10 down10 jitter5", Path{Up: Delay{Base: 10 * ms, Jitter: 5 * ms}, Down: Delay{Base: 10 * ms, Jitter: 5 * ms}, Seed: 3}},
		// Asymmetric.
		{"up15 down5", Path{Up: Delay{Base: 15 * ms}, Down: Delay{Base: 5 * ms}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newManualClock()
			x := startTCPProxy(t, startTCPEcho(t), tc.p, clk)
			c := dialTCP(t, x.Addr())
			c.SetDeadline(time.Now().Add(patience))
			// The first connection accepted is flow 1 of the seed.
			upDraws, downDraws := newRand(tc.p.Seed, 1, streamUp), newRand(tc.p.Seed, 1, streamDown)
			msg, buf := []byte("ping-0123456789"), make([]byte, 15)
			for i := range 10 {
				if _, err := c.Write(msg); err != nil {
					t.Fatal(err)
				}
				up := passHeld(t, clk, "the message held upstream")
				down := passHeld(t, clk, "the echo held downstream")
				if _, err := io.ReadFull(c, buf); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf, msg) {
					t.Fatalf("echo %q, want %q", buf, msg)
				}
				if wantUp, wantDown := tc.p.Up.Draw(upDraws), tc.p.Down.Draw(downDraws); up != wantUp || down != wantDown {
					t.Errorf("round trip %d held up %v down %v, want %v and %v", i, up, down, wantUp, wantDown)
				}
			}
		})
	}
}

// TestTCPStreamIntact sends 1 MB of a known pattern in uneven chunks
// through a jittery path and checks it comes back intact, in order, and
// that the half-close propagates after the data.
func TestTCPStreamIntact(t *testing.T) {
	t.Parallel()
	p := Path{Up: Delay{Base: 10 * ms, Jitter: 5 * ms}, Down: Delay{Base: 10 * ms, Jitter: 5 * ms}, Seed: 9}
	x := startTCPProxy(t, startTCPEcho(t), p, realClock{})
	c := dialTCP(t, x.Addr())
	want := make([]byte, 1<<20)
	for i := range want {
		want[i] = byte(i*7 + i>>8) // not periodic on chunk boundaries
	}
	errc := make(chan error, 1)
	go func() {
		rest := want
		for i := 0; len(rest) > 0; i++ {
			n := min(len(rest), 1000+(i*3779)%20000)
			if _, err := c.Write(rest[:n]); err != nil {
				errc <- err
				return
			}
			rest = rest[n:]
			if i%8 == 0 {
				time.Sleep(time.Millisecond) // separate reads, separate draws
			}
		}
		errc <- c.CloseWrite()
	}()
	c.SetReadDeadline(time.Now().Add(2 * patience))
	got, err := io.ReadAll(c) // ends at EOF: the echo closed after ours
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("stream corrupted: got %d bytes, first difference at %d", len(got), firstDiff(got, want))
	}
	st := x.Stats()
	if st.BytesUp != 1<<20 || st.BytesDown != 1<<20 {
		t.Errorf("stats %+v, want 1 MiB each way", st)
	}
	waitFor(t, "pair torn down", func() bool { return x.Stats().Active == 0 })
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestTCPServerCloseFlushesFirst checks that when the server writes and
// closes, the client sees the data, delayed (on the real clock: late on a
// busy machine, never early), and then EOF.
func TestTCPServerCloseFlushesFirst(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		s, err := ln.Accept()
		if err != nil {
			return
		}
		s.Write([]byte("bye"))
		s.Close()
	}()
	x := startTCPProxy(t, ln.Addr().String(), Path{Down: Delay{Base: 30 * ms}}, realClock{})
	start := time.Now()
	c := dialTCP(t, x.Addr())
	c.SetReadDeadline(time.Now().Add(patience))
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "bye" {
		t.Fatalf("read %q, %v; want \"bye\" then EOF", got, err)
	}
	if el := time.Since(start); el < 30*ms {
		t.Errorf("data and EOF after %v, want >= 30ms", el)
	}
}

// TestTCPProxyClose checks that Close tears down live connections at
// once: while a chunk is held, the clock standing still.
func TestTCPProxyClose(t *testing.T) {
	t.Parallel()
	clk := newManualClock()
	x, err := newTCPProxy("127.0.0.1:0", startTCPEcho(t), Path{Up: Delay{Base: time.Second}}, clk)
	if err != nil {
		t.Fatal(err)
	}
	c := dialTCP(t, x.Addr())
	c.Write([]byte("held for a second"))
	if d := clk.heldFor(t, "the chunk held"); d != time.Second {
		t.Fatalf("chunk held for %v, want 1s", d)
	}
	closed := make(chan error, 1)
	go func() { closed <- x.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(patience):
		t.Fatal("Close waits for the held chunk")
	}
	c.SetReadDeadline(time.Now().Add(patience))
	if n, err := c.Read(make([]byte, 64)); err == nil {
		t.Errorf("read %d bytes after Close, want EOF or reset", n)
	}
}

// TestTCPUpstreamDown checks that a client is disconnected when the
// upstream cannot be reached.
func TestTCPUpstreamDown(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	x := startTCPProxy(t, dead, Path{}, realClock{})
	c := dialTCP(t, x.Addr())
	c.SetReadDeadline(time.Now().Add(patience))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("read succeeded with no upstream")
	}
}
