package netsim

import (
	"bytes"
	"net"
	"testing"
	"time"
)

const ms = time.Millisecond

// passHeld waits until the proxy holds one packet (or chunk) on clk,
// moves the clock to its due time, and returns how long it was held.
func passHeld(t *testing.T, clk *manualClock, what string) time.Duration {
	t.Helper()
	d := clk.heldFor(t, what)
	clk.advance(d)
	return d
}

// TestUDPDelayPerDirection sends sequential probes through the proxy on a
// manual clock and checks that each is held for exactly the configured
// delay in each direction.
func TestUDPDelayPerDirection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		up, down time.Duration
	}{
		// The brief's case: a long uplink, short downlink.
		{"up20 down5", 20 * ms, 5 * ms},
		// The mirror image: asymmetry must follow the direction.
		{"up5 down20", 5 * ms, 20 * ms},
		// A 1 ms asymmetry on a longer path.
		{"up41 down40", 41 * ms, 40 * ms},
		// No delay: nothing is held.
		{"no delay", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newManualClock()
			x := startUDPProxy(t, startUDPEcho(t), Path{Up: Delay{Base: tc.up}, Down: Delay{Base: tc.down}}, manualCfg(clk))
			c := dialUDP(t, x.Addr())
			for i := range 20 {
				sendProbe(t, c, uint64(i), nil)
				var up, down time.Duration
				if tc.up > 0 {
					up = passHeld(t, clk, "the probe held upstream")
				}
				if tc.down > 0 {
					down = passHeld(t, clk, "the reply held downstream")
				}
				p, ok := recvProbe(t, c, patience)
				if !ok || p.seq != uint64(i) {
					t.Fatalf("probe %d: lost or out of order (got %d)", i, p.seq)
				}
				if up != tc.up || down != tc.down {
					t.Errorf("probe %d held up %v down %v, want %v and %v", i, up, down, tc.up, tc.down)
				}
			}
			if dues := clk.dues(true); len(dues) != 0 {
				t.Errorf("still held after the last reply: %v", sinceNow(clk, dues))
			}
		})
	}
}

// TestUDPRealClockNeverEarly sends probes through a proxy on the real
// clock: each one-way delay may come late on a busy machine, never early.
func TestUDPRealClockNeverEarly(t *testing.T) {
	t.Parallel()
	const up, down = 20 * ms, 5 * ms
	x := startUDPProxy(t, startUDPEcho(t), Path{Up: Delay{Base: up}, Down: Delay{Base: down}}, defaultCfg)
	c := dialUDP(t, x.Addr())
	for i := range 5 {
		sendProbe(t, c, uint64(i), nil)
		p, ok := recvProbe(t, c, patience)
		if !ok || p.seq != uint64(i) {
			t.Fatalf("probe %d: lost or out of order (got %d)", i, p.seq)
		}
		t.Logf("probe %d: up %v, down %v, round trip %v", i, p.up(), p.down(), p.rtt())
		if p.up() < up || p.down() < down {
			t.Errorf("probe %d shorter than configured: up %v down %v, want at least %v and %v", i, p.up(), p.down(), up, down)
		}
	}
}

// TestUDPJitter checks, on a manual clock, that with 5 ms jitter each way
// every packet is held for its base delay plus its own draw from its
// direction's seeded stream, so that the round trips spread over
// [25, 35) ms.
func TestUDPJitter(t *testing.T) {
	t.Parallel()
	p := Path{Up: Delay{Base: 20 * ms, Jitter: 5 * ms}, Down: Delay{Base: 5 * ms, Jitter: 5 * ms}, Seed: 42}
	clk := newManualClock()
	x := startUDPProxy(t, startUDPEcho(t), p, manualCfg(clk))
	c := dialUDP(t, x.Addr())
	upDraws, downDraws := newRand(p.Seed, 0, streamUp), newRand(p.Seed, 0, streamDown)
	const n = 300
	var rtts []time.Duration
	var bins [10]int
	for i := range n {
		sendProbe(t, c, uint64(i), nil)
		up := passHeld(t, clk, "the probe held upstream")
		down := passHeld(t, clk, "the reply held downstream")
		if pr, ok := recvProbe(t, c, patience); !ok || pr.seq != uint64(i) {
			t.Fatalf("probe %d: lost or out of order (got %d)", i, pr.seq)
		}
		if wantUp, wantDown := p.Up.Draw(upDraws), p.Down.Draw(downDraws); up != wantUp || down != wantDown {
			t.Fatalf("probe %d held up %v down %v, want the draws %v and %v", i, up, down, wantUp, wantDown)
		}
		rtt := up + down
		rtts = append(rtts, rtt)
		if k := int((rtt - 25*ms) / ms); k >= 0 && k < len(bins) {
			bins[k]++
		}
	}
	lo, hi := pct(rtts, 0), pct(rtts, 1)
	t.Logf("RTT min %v p5 %v p50 %v p95 %v max %v; 1 ms bins from 25 ms: %v",
		lo, pct(rtts, 0.05), pct(rtts, 0.5), pct(rtts, 0.95), hi, bins)
	if lo < 25*ms || hi >= 35*ms {
		t.Errorf("RTTs in [%v, %v], want within [25ms, 35ms)", lo, hi)
	}
	if spread := pct(rtts, 0.95) - pct(rtts, 0.05); spread < 6*ms {
		t.Errorf("RTT p5..p95 spread %v, want >= 6ms", spread)
	}
	covered := 0
	for _, b := range bins {
		if b > 0 {
			covered++
		}
	}
	if covered < 8 { // the sum of two uniforms is sparse at the edges
		t.Errorf("RTTs cover %d of the 10 1-ms bins in [25, 35), want >= 8", covered)
	}
}

// TestUDPTwoClients checks that each client behind one proxy gets exactly
// its own replies.
func TestUDPTwoClients(t *testing.T) {
	t.Parallel()
	p := Path{Up: Delay{Base: 5 * ms, Jitter: 3 * ms}, Down: Delay{Base: 2 * ms, Jitter: 3 * ms}}
	clk := newManualClock()
	x := startUDPProxy(t, startUDPEcho(t), p, manualCfg(clk))
	tags := [][]byte{[]byte("alice"), []byte("bob")}
	conns := []*net.UDPConn{dialUDP(t, x.Addr()), dialUDP(t, x.Addr())}
	const n = 20
	for i := range n { // interleave the two clients' traffic
		for k, c := range conns {
			sendProbe(t, c, uint64(i), tags[k])
		}
	}
	waitFor(t, "all probes held upstream", func() bool { return x.Stats().Held == 2*n })
	clk.advance(8 * ms) // past every upstream due time
	waitFor(t, "all replies held downstream", func() bool {
		st := x.Stats()
		return st.ForwardedUp == 2*n && st.Held == 2*n
	})
	clk.advance(5 * ms) // and every downstream one
	for k, c := range conns {
		seen := map[uint64]bool{}
		for range n {
			pr, ok := recvProbe(t, c, patience)
			if !ok {
				t.Fatalf("client %s: only %d replies", tags[k], len(seen))
			}
			if !bytes.Equal(pr.tag, tags[k]) {
				t.Fatalf("client %s got a reply meant for %s", tags[k], pr.tag)
			}
			seen[pr.seq] = true
		}
		if len(seen) != n {
			t.Errorf("client %s: %d distinct replies, want %d", tags[k], len(seen), n)
		}
	}
	// The proxy counts a datagram once it is sent: the client may read it
	// first.
	want := func(st UDPStats) bool {
		return st.Clients == 2 && st.ForwardedUp == 2*n && st.ForwardedDown == 2*n && st.Dropped == 0
	}
	waitFor(t, "2 clients, 40 forwarded each way, none dropped", func() bool { return want(x.Stats()) })
}

// TestUDPHeldBound checks that datagrams beyond the held bound are dropped
// and counted, while those within it are still delivered. The clock stands
// still until all are read, so none leaves early.
func TestUDPHeldBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		max, sent int
	}{
		// Well over the bound: the excess is dropped.
		{"overflow", 10, 50},
		// Exactly at the bound: nothing is dropped.
		{"at bound", 10, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newManualClock()
			cfg := udpConfig{maxHeld: tc.max, idle: IdleTimeout, clock: clk}
			x := startUDPProxy(t, startUDPEcho(t), Path{Up: Delay{Base: 200 * ms}}, cfg)
			c := dialUDP(t, x.Addr())
			for i := range tc.sent {
				sendProbe(t, c, uint64(i), nil)
			}
			wantDrop := uint64(tc.sent - tc.max)
			waitFor(t, "all datagrams read", func() bool {
				st := x.Stats()
				return st.Dropped+uint64(st.Held) == uint64(tc.sent)
			})
			if st := x.Stats(); st.Held != tc.max || st.Dropped != wantDrop {
				t.Errorf("held %d, dropped %d; want %d, %d", st.Held, st.Dropped, tc.max, wantDrop)
			}
			clk.advance(200 * ms)
			for i := range tc.max {
				if _, ok := recvProbe(t, c, patience); !ok {
					t.Fatalf("only %d of %d held datagrams delivered; stats %+v", i, tc.max, x.Stats())
				}
			}
			waitFor(t, "the held datagrams counted as forwarded", func() bool {
				st := x.Stats()
				return st.ForwardedUp == uint64(tc.max) && st.Dropped == wantDrop && st.Held == 0
			})
			if _, ok := recvProbe(t, c, 50*ms); ok {
				t.Error("a dropped datagram was delivered")
			}
		})
	}
}

// TestUDPIdleSessionClosed checks that an idle client's upstream socket is
// kept for the idle timeout, closed after it, and that the client is
// served again afterwards.
func TestUDPIdleSessionClosed(t *testing.T) {
	t.Parallel()
	const idle = 100 * ms
	clk := newManualClock()
	x := startUDPProxy(t, startUDPEcho(t), Path{}, udpConfig{maxHeld: MaxHeld, idle: idle, clock: clk})
	c := dialUDP(t, x.Addr())
	for round := range 2 {
		sendProbe(t, c, uint64(round), nil)
		if _, ok := recvProbe(t, c, patience); !ok {
			t.Fatalf("round %d: no reply", round)
		}
		if n := x.Stats().Clients; n != 1 {
			t.Fatalf("round %d: %d clients, want 1", round, n)
		}
		// The janitor looks at idle/4 intervals; once it has looked at
		// the idle timeout, the session is still there.
		last := clk.now()
		clk.advanceTo(last.Add(idle))
		dues := clk.await(t, "the janitor to look", false, func(d []time.Time) bool {
			return len(d) == 1 && d[0].After(last.Add(idle))
		})
		if n := x.Stats().Clients; n != 1 {
			t.Fatalf("round %d: %d clients after exactly the idle timeout, want 1", round, n)
		}
		clk.advanceTo(dues[0])
		waitFor(t, "idle session closed", func() bool { return x.Stats().Clients == 0 })
	}
}

// TestUDPClose checks that Close is idempotent and stops forwarding.
func TestUDPClose(t *testing.T) {
	t.Parallel()
	clk := newManualClock()
	x, err := newUDPProxy("127.0.0.1:0", startUDPEcho(t), Path{Up: Delay{Base: 50 * ms}}, manualCfg(clk))
	if err != nil {
		t.Fatal(err)
	}
	c := dialUDP(t, x.Addr())
	sendProbe(t, c, 1, nil)
	waitFor(t, "the datagram held", func() bool { return x.Stats().Held == 1 })
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	clk.advance(50 * ms)
	if _, ok := recvProbe(t, c, 100*ms); ok {
		t.Error("a reply arrived after Close")
	}
}

// TestNewUDPProxyBadAddress checks that address errors are returned.
func TestNewUDPProxyBadAddress(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, listen, upstream string }{
		// Unparsable upstream.
		{"bad upstream", "127.0.0.1:0", "no-port"},
		// Unparsable listen address.
		{"bad listen", "127.0.0.1:x", "127.0.0.1:9"},
	}
	for _, tc := range tests {
		if x, err := NewUDPProxy(tc.listen, tc.upstream, Path{}); err == nil {
			x.Close()
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// BenchmarkUDPRoundTripExcess measures, on the real clock, how much
// longer than its configured 2 ms up and 1 ms down a round trip through
// the proxy takes: the proxy's lateness plus four loopback hops. A round
// trip shorter than configured fails it.
func BenchmarkUDPRoundTripExcess(b *testing.B) {
	const up, down = 2 * ms, 1 * ms
	echo, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer echo.Close()
	go func() {
		buf := make([]byte, 64)
		for {
			n, from, err := echo.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			echo.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	x, err := NewUDPProxy("127.0.0.1:0", echo.LocalAddr().String(), Path{Up: Delay{Base: up}, Down: Delay{Base: down}})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	c, err := net.Dial("udp", x.Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var excess []time.Duration
	buf := make([]byte, 64)
	for b.Loop() {
		start := time.Now()
		if _, err := c.Write([]byte("probe")); err != nil {
			b.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(patience))
		if _, err := c.Read(buf); err != nil {
			b.Fatal(err)
		}
		excess = append(excess, time.Since(start)-up-down)
	}
	if pct(excess, 0) < 0 {
		b.Fatalf("a round trip took %v less than configured", -pct(excess, 0))
	}
	b.ReportMetric(float64(pct(excess, 0.5).Microseconds()), "p50-excess-µs")
	b.ReportMetric(float64(pct(excess, 0.9).Microseconds()), "p90-excess-µs")
}
