package client

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// newUDPTest builds a udp client for d whose calls wait at most timeout,
// closed at the test's end.
func newUDPTest(t *testing.T, d protocol.SocketDesc, timeout time.Duration) *UDP {
	t.Helper()
	c, err := New(Spec{Desc: protocol.ClientDesc{Kind: protocol.ClientUDP, Socket: &d}, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	u := c.(*UDP)
	t.Cleanup(func() { _ = u.Close() })
	return u
}

// udpEcho answers every datagram with itself.
func udpEcho(_ int, req []byte) []byte { return req }

// TestUDPCalls makes one call of each kind against real loopback servers.
func TestUDPCalls(t *testing.T) {
	t.Parallel()
	echoAddr := startUDP(t, udpEcho)
	garbage := startUDP(t, func(int, []byte) []byte { return []byte("garbage") })
	silentAddr := startUDP(t, func(int, []byte) []byte { return nil })
	ping := []byte("ping")
	tests := []struct {
		name   string
		desc   protocol.SocketDesc
		want   sample.Status
		bytes  int64
		errHas string
	}{
		{"echo", protocol.SocketDesc{Address: echoAddr, Send: ping}, sample.OK, 8, ""},
		{"echo, expect bytes", protocol.SocketDesc{Address: echoAddr, Send: ping, ExpectBytes: ping}, sample.OK, 8, ""},
		{"echo, expect pattern", protocol.SocketDesc{Address: echoAddr, Send: ping, ExpectPattern: "^p.ng$"}, sample.OK, 8, ""},
		{"echo, too short", protocol.SocketDesc{Address: echoAddr, Send: ping, ExpectLength: 5}, sample.Failed, 8, "expected a reply of 5 bytes, got 4"},
		{"garbage", protocol.SocketDesc{Address: garbage, Send: ping, ExpectBytes: ping}, sample.Failed, 11, `expected a reply starting "ping", got "garbage"`},
		{"no reply is lost", protocol.SocketDesc{Address: silentAddr, Send: ping}, sample.Lost, 4, "no reply within 100ms"},
		{"refused", protocol.SocketDesc{Address: closedAddr(t, "udp"), Send: ping}, sample.Failed, 4, "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			timeout := 5 * time.Second // robust on a busy machine
			if tt.want == sample.Lost {
				timeout = 100 * time.Millisecond
			}
			r := newUDPTest(t, tt.desc, timeout).Call(context.Background())
			if r.Status != tt.want || r.Bytes != tt.bytes || (tt.errHas == "") != (r.Err == "") || !strings.Contains(r.Err, tt.errHas) {
				t.Errorf("got %v, %d bytes, %q; want %v, %d bytes, %q", r.Status, r.Bytes, r.Err, tt.want, tt.bytes, tt.errHas)
			}
		})
	}
}

// TestUDPLossCounted: against an echo that drops every other datagram,
// sequential calls are exactly half Lost, half OK, in turn; the pooled
// socket is reused after each answered call.
func TestUDPLossCounted(t *testing.T) {
	t.Parallel()
	addr := startUDP(t, func(n int, req []byte) []byte {
		if n%2 == 1 {
			return nil
		}
		return req
	})
	c := newUDPTest(t, protocol.SocketDesc{Address: addr, Send: []byte("ping"), ExpectBytes: []byte("ping")}, 300*time.Millisecond)
	const calls = 20
	lost := 0
	for i := range calls {
		r := c.Call(context.Background())
		want := sample.OK
		if i%2 == 1 {
			want, lost = sample.Lost, lost+1
		}
		if r.Status != want {
			t.Fatalf("call %d: %+v, want %v", i, r, want)
		}
		if r.Status == sample.OK && len(c.idle) != 1 {
			t.Fatalf("call %d: %d idle sockets after an answered call, want 1", i, len(c.idle))
		}
	}
	if lost != calls/2 {
		t.Fatalf("%d lost", lost)
	}
}

// TestUDPConcurrent: client loops share the socket pool; every call gets
// its own reply, and the pool holds no more sockets than loops.
func TestUDPConcurrent(t *testing.T) {
	t.Parallel()
	addr := startUDP(t, udpEcho)
	c := newUDPTest(t, protocol.SocketDesc{Address: addr, Send: []byte("ping"), ExpectBytes: []byte("ping")}, 5*time.Second)
	const loops, calls = 4, 100
	var wg sync.WaitGroup
	var bad atomic.Int64
	for range loops {
		wg.Go(func() {
			for range calls {
				if r := c.Call(context.Background()); r.Status != sample.OK || r.Bytes != 8 {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 || len(c.idle) > loops {
		t.Fatalf("%d bad calls, %d idle sockets", bad.Load(), len(c.idle))
	}
}

// TestUDPLateReply: the late reply to a lost call is not taken for the
// next call's reply (the lost call's socket is not reused).
func TestUDPLateReply(t *testing.T) {
	t.Parallel()
	release, sent := make(chan struct{}), make(chan struct{})
	addr := startUDP(t, func(n int, _ []byte) []byte {
		if n == 0 {
			<-release // after the first call is lost
			defer close(sent)
			return []byte("late")
		}
		return []byte("good")
	})
	c := newUDPTest(t, protocol.SocketDesc{Address: addr, Send: []byte("ping"), ExpectBytes: []byte("good")}, 300*time.Millisecond)
	if r := c.Call(context.Background()); r.Status != sample.Lost {
		t.Fatalf("first call: %+v", r)
	}
	close(release)
	<-sent
	time.Sleep(50 * time.Millisecond) // the server writes the late reply (after answer returns)
	for i := range 3 {
		if r := c.Call(context.Background()); r.Status != sample.OK {
			t.Fatalf("call %d after a lost one: %+v (a late reply taken?)", i+1, r)
		}
	}
}

// TestUDPCancelled: a call cut off by its context is Cancelled.
func TestUDPCancelled(t *testing.T) {
	t.Parallel()
	addr := startUDP(t, func(int, []byte) []byte { return nil })
	c := newUDPTest(t, protocol.SocketDesc{Address: addr, Send: []byte("ping")}, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if r := c.Call(ctx); r.Status != sample.Cancelled || len(c.idle) != 0 {
		t.Fatalf("%+v, %d idle", r, len(c.idle))
	}
}
