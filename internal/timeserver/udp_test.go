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
			sizes := readAll(c, 200*time.Millisecond)
			st := waitStats(t, s, 1)
			if tt.answer {
				if len(sizes) != 1 || sizes[0] != ResponseSize || st != (Stats{Answered: 1}) {
					t.Errorf("replies %v, stats %+v; want one of %d bytes, Answered 1", sizes, st, ResponseSize)
				}
				return
			}
			if len(sizes) != 0 || st != (Stats{Malformed: 1}) {
				t.Errorf("replies %v, stats %+v; want none, Malformed 1", sizes, st)
			}
		})
	}
}

func TestServeUDPReplyNeverLargerThanRequest(t *testing.T) {
	t.Parallel()
	_, addr := startUDP(t, Config{})
	c := rawUDP(t, "", addr)
	for size := 0; size <= 2*RequestSize; size++ {
		req := AppendRequest(nil, int64(size))
		if size < len(req) {
			req = req[:size]
		} else {
			req = append(req, make([]byte, size-len(req))...)
		}
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		for _, n := range readAll(c, 20*time.Millisecond) {
			if n > size {
				t.Fatalf("a %d-byte request got a %d-byte reply", size, n)
			}
		}
	}
}

func TestServeUDPRateLimit(t *testing.T) {
	t.Parallel()
	s, addr := startUDP(t, Config{RatePerSource: 100, BurstPerSource: 10})
	c := rawUDP(t, "", addr)
	for i := range 200 {
		if _, err := c.Write(AppendRequest(nil, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	answered := len(readAll(c, 300*time.Millisecond))
	st := waitStats(t, s, 200)
	if answered < 10 || answered > 20 || st.Answered != uint64(answered) || st.RateLimited != uint64(200-answered) {
		t.Fatalf("%d answers, stats %+v; want 10-20 answers and the rest RateLimited", answered, st)
	}
	// Another source IP has its own bucket.
	other, err := dial("udp", "127.0.0.2:0", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ps, err := other.Burst(newTestClock(0), 5, time.Second)
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
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeUDP = %v after cancel, want nil", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("ServeUDP did not return after cancel")
	}
	// The socket is still open, with no deadline left behind.
	c.SetWriteDeadline(time.Now().Add(time.Second))
	if _, err := c.WriteToUDP([]byte("x"), c.LocalAddr().(*net.UDPAddr)); err != nil {
		t.Fatalf("socket unusable after ServeUDP: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(time.Second))
	if _, _, err := c.ReadFromUDP(make([]byte, 8)); err != nil {
		t.Fatalf("read after ServeUDP: %v", err)
	}
}
