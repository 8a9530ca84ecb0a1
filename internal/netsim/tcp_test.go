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

// TestTCPEchoRoundTrip checks that every round trip through the proxy takes
// at least the sum of the base delays, and not much more than the maximum.
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
			x := startTCPProxy(t, startTCPEcho(t), tc.p)
			c := dialTCP(t, x.Addr())
			lo := tc.p.Up.Base + tc.p.Down.Base
			hi := lo + tc.p.Up.Jitter + tc.p.Down.Jitter
			msg, buf := []byte("ping-0123456789"), make([]byte, 15)
			var rtts []time.Duration
			for range 10 {
				start := time.Now()
				if _, err := c.Write(msg); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					t.Fatal(err)
				}
				rtt := time.Since(start)
				if !bytes.Equal(buf, msg) {
					t.Fatalf("echo %q, want %q", buf, msg)
				}
				if rtt < lo {
					t.Errorf("RTT %v below %v", rtt, lo)
				}
				rtts = append(rtts, rtt-lo)
			}
			t.Logf("RTT minus %v: p50 %v max %v", lo, pct(rtts, 0.5), pct(rtts, 1))
			if p50 := pct(rtts, 0.5); p50 > hi-lo+slack {
				t.Errorf("median RTT excess %v, want <= %v", p50, hi-lo+slack)
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
	x := startTCPProxy(t, startTCPEcho(t), p)
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
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
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
	waitFor(t, time.Second, "pair torn down", func() bool { return x.Stats().Active == 0 })
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
// closes, the client sees the data, delayed, and then EOF.
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
	x := startTCPProxy(t, ln.Addr().String(), Path{Down: Delay{Base: 30 * ms}})
	start := time.Now()
	c := dialTCP(t, x.Addr())
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "bye" {
		t.Fatalf("read %q, %v; want \"bye\" then EOF", got, err)
	}
	if el := time.Since(start); el < 30*ms {
		t.Errorf("data and EOF after %v, want >= 30ms", el)
	}
}

// TestTCPProxyClose checks that Close tears down live connections.
func TestTCPProxyClose(t *testing.T) {
	t.Parallel()
	x, err := NewTCPProxy("127.0.0.1:0", startTCPEcho(t), Path{Up: Delay{Base: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	c := dialTCP(t, x.Addr())
	c.Write([]byte("held for a second"))
	waitFor(t, time.Second, "connection tracked", func() bool { return x.Stats().Active == 1 })
	start := time.Now()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 64)); err == nil {
		t.Errorf("read %d bytes after Close, want EOF or reset", n)
	}
	if el := time.Since(start); el > 500*ms {
		t.Errorf("Close took %v to tear down, want prompt", el)
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
	x := startTCPProxy(t, dead, Path{})
	c := dialTCP(t, x.Addr())
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("read succeeded with no upstream")
	}
}
