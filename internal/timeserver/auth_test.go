package timeserver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"net"
	"testing"
	"time"
)

// TestMACIsHMACSHA256 checks the prepared-key MAC against crypto/hmac:
// the request's over its first 32 bytes, the response's over its first
// 32 bytes and the request's MAC.
func TestMACIsHMACSHA256(t *testing.T) {
	t.Parallel()
	k := NewKey(9)
	want := func(parts ...[]byte) []byte {
		h := hmac.New(sha256.New, k.Secret[:])
		for _, p := range parts {
			h.Write(p)
		}
		return h.Sum(nil)[:MACSize]
	}
	req := authRequest(k, 1234)
	if got := req[macAt:]; !hmac.Equal(got, want(req[:macAt])) {
		t.Fatalf("request MAC %x, want HMAC-SHA256 %x", got, want(req[:macAt]))
	}
	r, ok := parseRequest(req)
	if !ok || !r.auth || r.keyID != 9 || r.t1 != 1234 {
		t.Fatalf("parseRequest = %+v, %v", r, ok)
	}
	resp := make([]byte, ResponseSize)
	putResponse(resp, req, r, 5)
	putT3(resp, 6)
	newMacer().sealResponse(newKeyState(k.Secret[:]), resp)
	if w := want(resp[:macAt], req[macAt:]); !hmac.Equal(resp[macAt:], w) {
		t.Fatalf("response MAC %x, want HMAC-SHA256 %x", resp[macAt:], w)
	}
}

// TestAuthenticatedProbe syncs with a keyed server over UDP and TCP: the
// probe is answered and authenticated, and nothing is refused.
func TestAuthenticatedProbe(t *testing.T) {
	t.Parallel()
	k := NewKey(1)
	for _, network := range []string{"udp", "tcp"} {
		t.Run(network, func(t *testing.T) {
			t.Parallel()
			s := New(Config{})
			s.AddKey(k)
			addr := serveOn(t, s, network)
			c, err := DialAuth(network, addr, nil, &k)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ps, err := c.Burst(newTestClock(time.Hour), 3, time.Second)
			if err != nil || len(ps) != 3 || !c.Authenticated() || c.Refused() != 0 {
				t.Fatalf("Burst: %d probes, %v; authenticated %v, refused %d", len(ps), err, c.Authenticated(), c.Refused())
			}
			if d := time.Duration(ps[0].Offset()) + time.Hour; d.Abs() > time.Duration(ps[0].RTT())/2+50*time.Microsecond {
				t.Errorf("offset %v, want −1h within RTT/2", time.Duration(ps[0].Offset()))
			}
		})
	}
}

// serveOn serves s on loopback over network until the test ends.
func serveOn(t *testing.T, s *Server, network string) string {
	t.Helper()
	if network == "udp" {
		return serveUDP(t, s)
	}
	_, addr := startTCPWith(t, s)
	return addr
}

// TestServerRefusesUnauthenticRequests sends requests a keyed server must
// not answer: a key id it does not hold, a flipped bit anywhere the MAC
// covers or in the MAC, a key it holds no longer. Each is counted, none
// answered; the authentic one after them is.
func TestServerRefusesUnauthenticRequests(t *testing.T) {
	t.Parallel()
	k := NewKey(3)
	s := New(Config{})
	s.AddKey(k)
	s.AddKey(NewKey(4))
	s.RemoveKey(4)
	c := rawUDP(t, "", serveUDP(t, s))
	var bad [][]byte
	bad = append(bad, authRequest(Key{ID: 99, Secret: k.Secret}, 1)) // unknown id
	bad = append(bad, authRequest(Key{ID: 4, Secret: k.Secret}, 1))  // removed
	bad = append(bad, authRequest(Key{ID: 3}, 1))                    // wrong secret
	for bit := 8 * 8; bit < 8*MessageSize; bit++ {                   // past the header
		if bit/8 >= keyIDAt+4 && bit/8 < nonceAt { // reserved: malformed, not unauthentic
			continue
		}
		p := authRequest(k, 1)
		p[bit/8] ^= 1 << (bit % 8)
		bad = append(bad, p)
	}
	for _, p := range bad {
		if _, err := c.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if st := waitStats(t, s, uint64(len(bad))); st.Unauthentic != uint64(len(bad)) || st.Answered != 0 {
		t.Fatalf("stats %+v after %d unauthentic requests; want all counted Unauthentic, none answered", st, len(bad))
	}
	if _, err := c.Write(authRequest(k, 2)); err != nil {
		t.Fatal(err)
	}
	if st := waitStats(t, s, uint64(len(bad))+1); st.Answered != 1 {
		t.Fatalf("stats %+v: the authentic request was not answered", st)
	}
}

// fakeServer answers each request read on a loopback UDP socket with the
// datagrams answer returns, in order, for as long as the test runs.
func fakeServer(t *testing.T, answer func(req []byte) [][]byte) string {
	t.Helper()
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	go func() {
		buf := make([]byte, 128)
		for {
			n, from, err := srv.ReadFromUDP(buf)
			if err != nil {
				return
			}
			for _, p := range answer(append([]byte(nil), buf[:n]...)) {
				srv.WriteToUDP(p, from)
			}
		}
	}()
	return srv.LocalAddr().String()
}

// sealed is k's authentic response to req, with t2 = t3 = t.
func sealed(k Key, req []byte, t int64) []byte {
	r, _ := parseRequest(req)
	p := make([]byte, ResponseSize)
	putResponse(p, req, r, t)
	putT3(p, t)
	newMacer().sealResponse(newKeyState(k.Secret[:]), p)
	return p
}

// TestClientRefusesForgedReplies plays a path that sends a forged or
// altered reply to each probe before the authentic one: the probe takes
// the authentic reply (T2 200) and counts the other refused.
func TestClientRefusesForgedReplies(t *testing.T) {
	t.Parallel()
	k := NewKey(5)
	other := NewKey(5) // same id, another tester's secret
	flip := func(bit int) func(req []byte) []byte {
		return func(req []byte) []byte {
			p := sealed(k, req, 100)
			p[bit/8] ^= 1 << (bit % 8)
			return p
		}
	}
	forgeries := map[string]func(req []byte) []byte{
		"t2 shifted":      flip(16*8 + 1),
		"t3 shifted":      flip(24*8 + 2),
		"mac bit flipped": flip(macAt*8 + 7),
		"other key":       func(req []byte) []byte { return sealed(other, req, 100) },
		"unauthenticated": func(req []byte) []byte { r, _ := parseRequest(req); return response(r.t1, 100, 100, nil) },
		"another request": func(req []byte) []byte { // the same t1, another nonce
			r, _ := parseRequest(req)
			return sealed(k, authRequest(k, r.t1), 100) // its own, random nonce
		},
	}
	for name, forge := range forgeries {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr := fakeServer(t, func(req []byte) [][]byte { return [][]byte{forge(req), sealed(k, req, 200)} })
			c, err := DialAuth("udp", addr, nil, &k)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			p, err := c.Probe(newTestClock(0), patience)
			if err != nil || p.T2 != 200 || c.Refused() != 1 {
				t.Fatalf("Probe = %+v, %v, refused %d; want the authentic answer (T2 200) and 1 refused", p, err, c.Refused())
			}
		})
	}
}

// TestClientRefusesForgedReplyOverTCP: over TCP a forged reply fails the
// probe with ErrRefused, counted, and the next probe (on a new
// connection) takes the authentic one.
func TestClientRefusesForgedReplyOverTCP(t *testing.T) {
	t.Parallel()
	k := NewKey(6)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for i := int64(0); ; i++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			req := make([]byte, RequestSize)
			if _, err := conn.Read(req); err == nil {
				p := sealed(k, req, 100+i)
				if i == 0 {
					p[20] ^= 0x10 // t2 altered
				}
				conn.Write(p)
			}
		}
	}()
	c, err := DialAuth("tcp", ln.Addr().String(), nil, &k)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Probe(newTestClock(0), patience); !errors.Is(err, ErrRefused) || c.Refused() != 1 {
		t.Fatalf("Probe of an altered reply: %v, refused %d; want ErrRefused, 1", err, c.Refused())
	}
	if p, err := c.Probe(newTestClock(0), patience); err != nil || p.T2 != 101 {
		t.Fatalf("Probe after it = %+v, %v; want the authentic answer on a new connection", p, err)
	}
}

// TestLoadAuthenticated loads a keyed server with requests authenticated
// with its key, then with another secret under the same id: the first
// are all answered, the second all refused and counted.
func TestLoadAuthenticated(t *testing.T) {
	t.Parallel()
	k := NewKey(8)
	s, addr := startUDP(t, Config{})
	s.AddKey(k)
	forged := NewKey(8)
	for _, tt := range []struct {
		key      *Key
		answered bool
	}{{&k, true}, {&forged, false}} {
		before := s.Stats()
		r, err := Load(context.Background(), LoadConfig{Target: addr, Rate: 2000, Duration: 100 * time.Millisecond,
			Sources: loopbackSources(30, 2), Grace: 500 * time.Millisecond, Key: tt.key})
		if err != nil {
			t.Fatal(err)
		}
		st := waitStats(t, s, before.Answered+before.Unauthentic+r.Sent)
		answered, refused := st.Answered-before.Answered, st.Unauthentic-before.Unauthentic
		if r.Sent == 0 || tt.answered && (r.Answered != r.Sent || refused != 0) || !tt.answered && (r.Answered != 0 || refused != r.Sent) {
			t.Errorf("key %v: sent %d, answered %d; server answered %d, refused %d", tt.answered, r.Sent, r.Answered, answered, refused)
		}
	}
}

// TestBurstOfForgedRepliesFails: a path that alters every reply leaves a
// burst nothing to use; it fails saying how many replies were refused.
func TestBurstOfForgedRepliesFails(t *testing.T) {
	t.Parallel()
	k := NewKey(10)
	addr := fakeServer(t, func(req []byte) [][]byte {
		p := sealed(k, req, 100)
		p[17] ^= 0x20 // T2 moved by 2^45 ns: about 10 hours
		return [][]byte{p}
	})
	c, err := DialAuth("udp", addr, nil, &k)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ps, err := c.Burst(newTestClock(0), 3, 50*time.Millisecond)
	if !errors.Is(err, ErrRefused) || c.Refused() != 3 || len(ps) != 0 {
		t.Fatalf("Burst = %d probes, %v, %d refused; want ErrRefused and 3 refused", len(ps), err, c.Refused())
	}
}
