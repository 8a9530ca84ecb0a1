package timeserver

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"
)

// startUDP serves a new Server with cfg on a loopback UDP socket until the
// test ends, and returns it with its address.
func startUDP(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	c, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
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
	return s, c.LocalAddr().String()
}

// startTCP serves a new Server with cfg on a loopback TCP listener until
// the test ends, and returns it with its address.
func startTCP(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
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
// returns its Stats.
func waitStats(t *testing.T, s *Server, n uint64) Stats {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		st := s.Stats()
		if st.Answered+st.RateLimited+st.Malformed >= n || time.Now().After(deadline) {
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

// readAll reads datagrams until quiet passes without one and returns
// their sizes.
func readAll(c *net.UDPConn, quiet time.Duration) []int {
	var sizes []int
	buf := make([]byte, 2048)
	for {
		c.SetReadDeadline(time.Now().Add(quiet))
		n, err := c.Read(buf)
		if err != nil {
			return sizes
		}
		sizes = append(sizes, n)
	}
}

func mustAddrPort(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}
