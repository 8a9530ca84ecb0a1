package netsim

import (
	"bytes"
	"net"
	"testing"
	"time"
)

const ms = time.Millisecond

// slack is how late a delayed packet may come in these tests.
const slack = 5 * ms

// TestUDPDelayPerDirection sends sequential probes through the proxy and
// checks the median round trip and each one-way delay separately.
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
		// No delay: the proxy's own overhead, as a baseline.
		{"no delay", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := startUDPProxy(t, startUDPEcho(t), Path{Up: Delay{Base: tc.up}, Down: Delay{Base: tc.down}}, defaultCfg)
			c := dialUDP(t, x.Addr())
			var rtts, ups, downs []time.Duration
			for i := range 20 {
				sendProbe(t, c, uint64(i), nil)
				p, ok := recvProbe(t, c, time.Second)
				if !ok || p.seq != uint64(i) {
					t.Fatalf("probe %d: lost or out of order (got %d)", i, p.seq)
				}
				if p.up() < tc.up || p.down() < tc.down {
					t.Errorf("probe %d shorter than configured: up %v down %v", i, p.up(), p.down())
				}
				rtts, ups, downs = append(rtts, p.rtt()), append(ups, p.up()-tc.up), append(downs, p.down()-tc.down)
			}
			rtt, want := pct(rtts, 0.5), tc.up+tc.down
			t.Logf("median RTT %v; up excess p50 %v max %v; down excess p50 %v max %v",
				rtt, pct(ups, 0.5), pct(ups, 1), pct(downs, 0.5), pct(downs, 1))
			// Slack for a shared 2-core machine running other tests at once:
			// a delay may come late by a scheduling hiccup, never early.
			if rtt < want || rtt > want+slack {
				t.Errorf("median RTT %v, want in [%v, %v]", rtt, want, want+slack)
			}
			if u := pct(ups, 0.5); u > slack/2 {
				t.Errorf("median up delay off by %v, want <= %v", u, slack/2)
			}
			if d := pct(downs, 0.5); d > slack/2 {
				t.Errorf("median down delay off by %v, want <= %v", d, slack/2)
			}
		})
	}
}

// TestUDPJitter checks that with 5 ms jitter each way the round trips
// spread over [25, 35) ms and never undercut the base delay.
func TestUDPJitter(t *testing.T) {
	t.Parallel()
	p := Path{Up: Delay{Base: 20 * ms, Jitter: 5 * ms}, Down: Delay{Base: 5 * ms, Jitter: 5 * ms}, Seed: 42}
	x := startUDPProxy(t, startUDPEcho(t), p, defaultCfg)
	c := dialUDP(t, x.Addr())
	const n = 300
	go func() {
		for i := range n {
			c.Write(probeBytes(uint64(i), nil)) // a failure shows up as a lost probe
			time.Sleep(2 * ms)
		}
	}()
	var rtts []time.Duration
	var bins [10]int
	for len(rtts) < n {
		pr, ok := recvProbe(t, c, time.Second)
		if !ok {
			t.Fatalf("only %d of %d probes came back", len(rtts), n)
		}
		rtts = append(rtts, pr.rtt())
		if k := int((pr.rtt() - 25*ms) / ms); k >= 0 && k < len(bins) {
			bins[k]++
		}
	}
	lo, hi := pct(rtts, 0), pct(rtts, 1)
	t.Logf("RTT min %v p5 %v p50 %v p95 %v max %v; 1 ms bins from 25 ms: %v",
		lo, pct(rtts, 0.05), pct(rtts, 0.5), pct(rtts, 0.95), hi, bins)
	if lo < 25*ms {
		t.Errorf("min RTT %v below 25ms", lo)
	}
	inRange := 0 // within [25, 35) ms plus slack for the hops themselves
	for _, r := range rtts {
		if r < 35*ms+slack {
			inRange++
		}
	}
	// Parallel tests on a small machine can stall a few probes by
	// milliseconds, so only "most" of them must be on time.
	if inRange < len(rtts)*8/10 {
		t.Errorf("%d of %d RTTs in [25ms, %v), want >= 80%%", inRange, len(rtts), 35*ms+slack)
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
	x := startUDPProxy(t, startUDPEcho(t), p, defaultCfg)
	tags := [][]byte{[]byte("alice"), []byte("bob")}
	conns := []*net.UDPConn{dialUDP(t, x.Addr()), dialUDP(t, x.Addr())}
	const n = 20
	for i := range n { // interleave the two clients' traffic
		for k, c := range conns {
			sendProbe(t, c, uint64(i), tags[k])
		}
	}
	for k, c := range conns {
		seen := map[uint64]bool{}
		for range n {
			pr, ok := recvProbe(t, c, time.Second)
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
	waitFor(t, time.Second, "2 clients, 40 forwarded each way, none dropped", func() bool { return want(x.Stats()) })
}

// TestUDPHeldBound checks that datagrams beyond the held bound are dropped
// and counted, while those within it are still delivered.
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
			cfg := udpConfig{maxHeld: tc.max, idle: IdleTimeout}
			x := startUDPProxy(t, startUDPEcho(t), Path{Up: Delay{Base: 200 * ms}}, cfg)
			c := dialUDP(t, x.Addr())
			for i := range tc.sent {
				sendProbe(t, c, uint64(i), nil)
			}
			wantDrop := uint64(tc.sent - tc.max)
			waitFor(t, 2*time.Second, "all datagrams read", func() bool {
				st := x.Stats()
				return st.Dropped+uint64(st.Held) == uint64(tc.sent)
			})
			if h := x.Stats().Held; h != tc.max {
				t.Errorf("held %d, want %d", h, tc.max)
			}
			for i := range tc.max {
				if _, ok := recvProbe(t, c, time.Second); !ok {
					t.Fatalf("only %d of %d held datagrams delivered; stats %+v", i, tc.max, x.Stats())
				}
			}
			if _, ok := recvProbe(t, c, 50*ms); ok {
				t.Error("a dropped datagram was delivered")
			}
			waitFor(t, time.Second, "the held datagrams counted as forwarded", func() bool {
				st := x.Stats()
				return st.ForwardedUp == uint64(tc.max) && st.Dropped == wantDrop && st.Held == 0
			})
		})
	}
}

// TestUDPIdleSessionClosed checks that an idle client's upstream socket is
// closed and that the client is served again afterwards.
func TestUDPIdleSessionClosed(t *testing.T) {
	t.Parallel()
	x := startUDPProxy(t, startUDPEcho(t), Path{}, udpConfig{maxHeld: MaxHeld, idle: 100 * ms})
	c := dialUDP(t, x.Addr())
	for round := range 2 {
		sendProbe(t, c, uint64(round), nil)
		if _, ok := recvProbe(t, c, time.Second); !ok {
			t.Fatalf("round %d: no reply", round)
		}
		if n := x.Stats().Clients; n != 1 {
			t.Fatalf("round %d: %d clients, want 1", round, n)
		}
		waitFor(t, 2*time.Second, "idle session closed", func() bool { return x.Stats().Clients == 0 })
	}
}

// TestUDPClose checks that Close is idempotent and stops forwarding.
func TestUDPClose(t *testing.T) {
	t.Parallel()
	x, err := NewUDPProxy("127.0.0.1:0", startUDPEcho(t), Path{Up: Delay{Base: 50 * ms}})
	if err != nil {
		t.Fatal(err)
	}
	c := dialUDP(t, x.Addr())
	sendProbe(t, c, 1, nil)
	time.Sleep(10 * ms) // the datagram is now held
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
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
