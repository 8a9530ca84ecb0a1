package timeserver

import (
	"context"
	"net"
	"testing"
	"time"
)

func TestServeUDPAnswersOnlyValidRequests(t *testing.T) {
	t.Parallel()
	valid := AppendRequest(nil, 42)
	with := func(i int, b byte) []byte { p := AppendRequest(nil, 42); p[i] = b; return p }
	tests := []struct {
		name   string
		req    []byte
		answer bool
	}{
		{"valid", valid, true}, // exactly RequestSize
		{"long", append(AppendRequest(nil, 42), make([]byte, 900)...), true}, // longer is fine: reply is smaller still
		{"empty datagram", []byte{}, false},                                  // nothing at all
		{"one byte", []byte{'D'}, false},                                     // far too short
		{"one byte short", valid[:RequestSize-1], false},                     // header fine, size not
		{"header only", valid[:headerSize+8], false},                         // a t1 but no padding
		{"bad magic", with(0, 'X'), false},                                   // not ours
		{"bad version", with(4, 9), false},                                   // unknown version
		{"response kind", with(5, kindResponse), false},                      // kind 2 at full size
		{"reserved byte", with(6, 1), false},                                 // reserved bytes must be zero
		{"a response", response(1, 2, 3, nil), false},                        // reflecting it could loop two servers
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, addr := startUDP(t, Config{})
			c := rawUDP(t, "", addr)
			if _, err := c.Write(tt.req); err != nil {
				t.Fatal(err)
			}
			st := waitStats(t, s, 1)
			want := 0
			if tt.answer {
				want = 1
			}
			replies := collect(t, c, want)
			if tt.answer {
				t1, ok := echoedT1(replies[0])
				if len(replies) != 1 || len(replies[0]) != ResponseSize || !ok || t1 != 42 || st != (Stats{Answered: 1}) {
					t.Errorf("%d replies, the first of %d bytes echoing %d; stats %+v; want one of %d bytes echoing 42, Answered 1",
						len(replies), len(replies[0]), t1, st, ResponseSize)
				}
				return
			}
			if len(replies) != 0 || st != (Stats{Malformed: 1}) {
				t.Errorf("%d replies, stats %+v; want none, Malformed 1", len(replies), st)
			}
		})
	}
}

func TestServeUDPReplyNeverLargerThanRequest(t *testing.T) {
	t.Parallel()
	s, addr := startUDP(t, Config{})
	c := rawUDP(t, "", addr)
	const sizes = 2*RequestSize + 1 // 0 to 2*RequestSize bytes
	for size := range sizes {
		req := AppendRequest(nil, int64(size)) // the reply echoes the size
		if size < len(req) {
			req = req[:size]
		} else {
			req = append(req, make([]byte, size-len(req))...)
		}
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
	}
	st := waitStats(t, s, sizes)
	for _, r := range collect(t, c, int(st.Answered)) {
		size, ok := echoedT1(r)
		if !ok {
			t.Fatalf("a reply of %d bytes is no response: %x", len(r), r)
		}
		if len(r) > int(size) {
			t.Fatalf("a %d-byte request got a %d-byte reply", size, len(r))
		}
	}
}

// TestServeUDPRateLimit sends 200 requests at once from one source: the
// limiter's clock stands still, so exactly the burst of 10 is answered;
// 10 ms later at 100/s, exactly one more.
func TestServeUDPRateLimit(t *testing.T) {
	t.Parallel()
	s, addr, clk := startUDPClocked(t, Config{RatePerSource: 100, BurstPerSource: 10})
	c := rawUDP(t, "", addr)
	for i := range 200 {
		if _, err := c.Write(AppendRequest(nil, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if st := waitStats(t, s, 200); st != (Stats{Answered: 10, RateLimited: 190}) {
		t.Fatalf("stats %+v; want the burst of 10 answered and the rest RateLimited", st)
	}
	clk.advance(10 * time.Millisecond) // one token: for the marker
	if n := len(collect(t, c, 10)); n != 10 {
		t.Errorf("%d answers, want 10", n)
	}
	if st := waitStats(t, s, 201); st != (Stats{Answered: 11, RateLimited: 190}) {
		t.Errorf("stats %+v after a 10 ms refill at 100/s; want one more answered", st)
	}
	// Another source IP has its own bucket.
	other, err := dial("udp", "127.0.0.2:0", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ps, err := other.Burst(newTestClock(0), 5, patience)
	if err != nil || len(ps) != 5 {
		t.Fatalf("second source: %d of 5 probes answered (%v)", len(ps), err)
	}
}

func TestServeUDPStopsWithoutClosing(t *testing.T) {
	t.Parallel()
	c, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(Config{}).ServeUDP(ctx, c) }()
	// Once a request is answered, the reader loops are running.
	if n := len(collect(t, rawUDP(t, "", c.LocalAddr().String()), 0)); n != 0 {
		t.Fatalf("%d unexpected replies", n)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeUDP = %v after cancel, want nil", err)
		}
	case <-time.After(patience):
		t.Fatal("ServeUDP did not return after cancel")
	}
	// The socket is still open, with no deadline left behind.
	c.SetWriteDeadline(time.Now().Add(patience))
	if _, err := c.WriteToUDP([]byte("x"), c.LocalAddr().(*net.UDPAddr)); err != nil {
		t.Fatalf("socket unusable after ServeUDP: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(patience))
	if _, _, err := c.ReadFromUDP(make([]byte, 8)); err != nil {
		t.Fatalf("read after ServeUDP: %v", err)
	}
}
