package netsim

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"slices"
	"testing"
	"time"
)

// base is the shared time origin for one-way measurements: client and echo
// server live in one process, so offsets from it are comparable.
var base = time.Now()

// since returns the monotonic time elapsed since base.
func since() time.Duration { return time.Since(base) }

// startUDPEcho starts an echo server that appends to every datagram the
// offset (ns since base) at which it arrived, and returns its address.
func startUDPEcho(t *testing.T) string {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf[:1024])
			at := since()
			if err != nil {
				return
			}
			out := binary.BigEndian.AppendUint64(buf[:n], uint64(at))
			conn.WriteToUDPAddrPort(out, from)
		}
	}()
	return conn.LocalAddr().String()
}

// startUDPProxy starts a proxy with cfg in front of upstream, closed at cleanup.
func startUDPProxy(t *testing.T, upstream string, p Path, cfg udpConfig) *UDPProxy {
	t.Helper()
	x, err := newUDPProxy("127.0.0.1:0", upstream, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// defaultCfg is the production configuration.
var defaultCfg = udpConfig{maxHeld: MaxHeld, idle: IdleTimeout}

// manualCfg is the production configuration on the clock clk.
func manualCfg(clk *manualClock) udpConfig {
	return udpConfig{maxHeld: MaxHeld, idle: IdleTimeout, clock: clk}
}

// dialUDP returns a client socket connected to addr, closed at cleanup.
func dialUDP(t *testing.T, addr string) *net.UDPConn {
	t.Helper()
	ra, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialUDP("udp", nil, ra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// probe is one timed round trip through the echo server.
type probe struct {
	seq      uint64
	sent, at time.Duration // client send and echo arrival, since base
	recv     time.Duration // client receipt, since base
	tag      []byte
}

// up, down and rtt are the measured one-way and round-trip delays.
func (p probe) up() time.Duration   { return p.at - p.sent }
func (p probe) down() time.Duration { return p.recv - p.at }
func (p probe) rtt() time.Duration  { return p.recv - p.sent }

// probeBytes returns a probe datagram: seq, send offset (now), then tag.
func probeBytes(seq uint64, tag []byte) []byte {
	b := binary.BigEndian.AppendUint64(nil, seq)
	b = binary.BigEndian.AppendUint64(b, uint64(since()))
	return append(b, tag...)
}

// sendProbe sends a probe datagram built by probeBytes.
func sendProbe(t *testing.T, c *net.UDPConn, seq uint64, tag []byte) {
	t.Helper()
	if _, err := c.Write(probeBytes(seq, tag)); err != nil {
		t.Fatal(err)
	}
}

// recvProbe reads one echoed probe, or reports false on timeout.
func recvProbe(t *testing.T, c *net.UDPConn, timeout time.Duration) (probe, bool) {
	t.Helper()
	buf := make([]byte, 2048)
	c.SetReadDeadline(time.Now().Add(timeout))
	n, err := c.Read(buf)
	recv := since()
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return probe{}, false
		}
		t.Fatal(err)
	}
	if n < 24 {
		t.Fatalf("short echo: %d bytes", n)
	}
	be := binary.BigEndian
	return probe{seq: be.Uint64(buf), sent: time.Duration(be.Uint64(buf[8:])),
		at: time.Duration(be.Uint64(buf[n-8:])), recv: recv, tag: slices.Clone(buf[16 : n-8])}, true
}

// pct returns the q-quantile (0..1) of ds, which it sorts.
func pct(ds []time.Duration, q float64) time.Duration {
	slices.Sort(ds)
	return ds[int(q*float64(len(ds)-1)+0.5)]
}

// startTCPEcho starts a TCP server that echoes each connection until EOF
// and then closes it; it returns the address.
func startTCPEcho(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// startTCPProxy starts a TCP proxy in front of upstream, with delays on
// clk, closed at cleanup.
func startTCPProxy(t *testing.T, upstream string, p Path, clk clock) *TCPProxy {
	t.Helper()
	x, err := newTCPProxy("127.0.0.1:0", upstream, p, clk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// waitFor polls cond until it holds, failing the test after patience.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
