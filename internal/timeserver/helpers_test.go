package timeserver

import (
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// patience bounds how long a test waits for something that a working
// server does at once: it only keeps a broken one from hanging the test,
// and is long enough for a busy machine.
const patience = 10 * time.Second

// startUDP serves a new Server with cfg on a loopback UDP socket until the
// test ends, and returns it with its address.
func startUDP(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s := New(cfg)
	return s, serveUDP(t, s)
}

// startUDPClocked is startUDP with the rate limit on a fake clock, which
// stands still until the test advances it.
func startUDPClocked(t *testing.T, cfg Config) (*Server, string, *fakeClock) {
	t.Helper()
	s := New(cfg)
	clk := &fakeClock{t: s.lim.epoch}
	s.lim.clock = clk.now
	return s, serveUDP(t, s), clk
}

// fakeClock is a clock that moves only when the test advances it.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// serveUDP serves s on a loopback UDP socket until the test ends, and
// returns its address.
func serveUDP(t *testing.T, s *Server) string {
	t.Helper()
	c, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeUDP(ctx, c) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeUDP: %v", err)
		}
		c.Close()
	})
	return c.LocalAddr().String()
}

// startTCP serves a new Server with cfg on a loopback TCP listener until
// the test ends, and returns it with its address.
func startTCP(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	return startTCPWith(t, New(cfg))
}

// startTCPWith serves s on a loopback TCP listener until the test ends.
func startTCPWith(t *testing.T, s *Server) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeTCP(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeTCP: %v", err)
		}
	})
	return s, ln.Addr().String()
}

// waitStats waits until the server has handled n requests in all, and
// returns its Stats: a request is counted once its reply has been
// written, so a client may read the reply before the count moves.
func waitStats(t *testing.T, s *Server, n uint64) Stats {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		st := s.Stats()
		if st.Answered+st.RateLimited+st.Malformed+st.Unauthentic >= n || time.Now().After(deadline) {
			return st
		}
		time.Sleep(time.Millisecond)
	}
}

// rawUDP returns a UDP socket connected to addr, from laddr ("" for any).
func rawUDP(t *testing.T, laddr, addr string) *net.UDPConn {
	t.Helper()
	var la *net.UDPAddr
	if laddr != "" {
		la = net.UDPAddrFromAddrPort(mustAddrPort(t, laddr))
	}
	c, err := net.DialUDP("udp", la, net.UDPAddrFromAddrPort(mustAddrPort(t, addr)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// markerT1 is the T1 of the request that closes a collect: no other
// request of these tests carries it.
const markerT1 = 0x6d61726b6572 // "marker"

// collect reads what the server sends back on c until at least n
// datagrams and the reply to a marker request, sent now, have come, and
// returns the datagrams other than the marker's reply. It replaces
// reading until a quiet period passes, which a busy machine can outlast:
// a reply to a request the server handled before the marker (see
// waitStats) comes before the marker's, unless its two reader loops race,
// so a reply that should not exist is seen too. Each read waits up to
// patience.
func collect(t *testing.T, c *net.UDPConn, n int) [][]byte {
	t.Helper()
	if _, err := c.Write(AppendRequest(nil, markerT1)); err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	buf := make([]byte, 2048)
	for marker := false; !marker || len(got) < n; {
		c.SetReadDeadline(time.Now().Add(patience))
		m, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %d replies (marker answered: %v): %v", len(got), marker, err)
		}
		if t1, ok := echoedT1(buf[:m]); ok && t1 == markerT1 && !marker {
			marker = true
			continue
		}
		got = append(got, append([]byte(nil), buf[:m]...))
	}
	return got
}

// echoedT1 returns the T1 a reply echoes (bytes 8 to 16), whatever its
// size, if it has the header of a response.
func echoedT1(p []byte) (int64, bool) {
	if len(p) < 16 || !validHeader(p, kindResponse) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(p[8:])), true
}

func mustAddrPort(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}
