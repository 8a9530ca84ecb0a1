package client

import (
	"context"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// newTCPTest builds a tcp client for d whose calls last at most timeout,
// closed at the test's end.
func newTCPTest(t *testing.T, d protocol.SocketDesc, timeout time.Duration) *TCP {
	t.Helper()
	c, err := NewTCP(d, timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestTCPCalls makes one call of each kind against real loopback servers
// and checks its class, its bytes and its error text.
func TestTCPCalls(t *testing.T) {
	t.Parallel()
	echoSrv := startTCP(t, echo)
	bannerSrv := startTCP(t, banner("220 ready\r\n"))
	garbage := startTCP(t, lineReply("garbage that goes on and on and on for more than forty bytes\n"))
	silentSrv := startTCP(t, silent)
	resetSrv := startTCP(t, reset)
	ping := []byte("ping\n")
	tests := []struct {
		name      string
		desc      protocol.SocketDesc
		want      sample.Status
		bytes     int64  // -1: not checked
		errHas    string // "" = no error text
		connected bool   // Phases.Connect set (a connect happened, whatever came after)
	}{
		{"echo, expect bytes", protocol.SocketDesc{Address: echoSrv.addr, Send: ping, ExpectBytes: ping}, sample.OK, 10, "", true},
		{"echo, expect length", protocol.SocketDesc{Address: echoSrv.addr, Send: ping, ExpectLength: 5}, sample.OK, 10, "", true},
		{"echo, expect pattern", protocol.SocketDesc{Address: echoSrv.addr, Send: ping, ExpectPattern: `p.ng\n$`}, sample.OK, 10, "", true},
		{"banner, no send, pattern", protocol.SocketDesc{Address: bannerSrv.addr, ExpectPattern: `^220 .*\r\n`}, sample.OK, 11, "", true},
		{"banner, read until close", protocol.SocketDesc{Address: bannerSrv.addr}, sample.OK, 11, "", true},
		{"banner, too short for length", protocol.SocketDesc{Address: bannerSrv.addr, ExpectLength: 20}, sample.Failed, 11, "closed the connection before the reply was complete (after 11 bytes)", true},
		{"connect only", protocol.SocketDesc{Address: echoSrv.addr, ConnectOnly: true}, sample.OK, 0, "", true},
		{"garbage fails, quoting it", protocol.SocketDesc{Address: garbage.addr, Send: ping, ExpectBytes: ping},
			sample.Failed, -1, `expected a reply starting "ping\n", got "garb`, true},
		{"garbage fails the pattern", protocol.SocketDesc{Address: garbage.addr, Send: ping, ExpectPattern: "^pong", ExpectLength: 10},
			sample.Failed, 15, `expected a reply matching /^pong/, got "garbage th" (10 bytes)`, true},
		{"garbage differing deep in is shown where it differs", protocol.SocketDesc{Address: garbage.addr, Send: ping, ExpectLength: 60, ExpectBytes: []byte("garbage that goes on and on and on for more than fifty")},
			sample.Failed, -1, `reply byte 50 differs: expected ..."ore than fifty", got ..."ore than forty"`, true},
		{"silent server times out", protocol.SocketDesc{Address: silentSrv.addr, Send: ping, ExpectLength: 5}, sample.Timeout, 5, "timeout", true},
		{"reset fails", protocol.SocketDesc{Address: resetSrv.addr, Send: ping, ExpectLength: 5}, sample.Failed, -1, "reset", true},
		{"refused fails", protocol.SocketDesc{Address: closedAddr(t, "tcp"), Send: ping}, sample.Failed, 0, "refused", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			timeout := 5 * time.Second // robust on a busy machine
			if tt.want == sample.Timeout {
				timeout = 100 * time.Millisecond
			}
			r := newTCPTest(t, tt.desc, timeout).Call(context.Background())
			if r.Status != tt.want || (tt.bytes >= 0 && r.Bytes != tt.bytes) {
				t.Errorf("got %v, %d bytes (%q), want %v, %d bytes", r.Status, r.Bytes, r.Err, tt.want, tt.bytes)
			}
			if (tt.errHas == "") != (r.Err == "") || !strings.Contains(r.Err, tt.errHas) {
				t.Errorf("error %q, want one holding %q", r.Err, tt.errHas)
			}
			if (r.Phases.Connect > 0) != tt.connected {
				t.Errorf("connect phase %d ns, want set: %v", r.Phases.Connect, tt.connected)
			}
		})
	}
}

// TestTCPBadPattern: a pattern that is not RE2 is an error of New, and
// no client (not even a typed nil).
func TestTCPBadPattern(t *testing.T) {
	t.Parallel()
	c, err := New(Spec{Desc: protocol.ClientDesc{Kind: protocol.ClientTCP,
		Socket: &protocol.SocketDesc{Address: "127.0.0.1:1", ExpectPattern: "(a"}}, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "expect_pattern") || c != nil {
		t.Fatalf("client %v, err = %v", c, err)
	}
}

// TestTCPKeepAlive: concurrent client loops share a pool, so calls reuse
// connections (only the first call on each connects), and a connection
// whose call failed is not reused.
func TestTCPKeepAlive(t *testing.T) {
	t.Parallel()
	srv := startTCP(t, echo)
	c := newTCPTest(t, protocol.SocketDesc{Address: srv.addr, Send: []byte("ping\n"), ExpectLength: 5, KeepAlive: true}, 5*time.Second)
	var wg sync.WaitGroup
	var connects, bad atomic.Int64
	const loops, calls = 4, 50
	for range loops {
		wg.Go(func() {
			for range calls {
				r := c.Call(context.Background())
				if r.Status != sample.OK || r.Bytes != 10 {
					bad.Add(1)
				}
				if r.Phases.Connect > 0 {
					connects.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 || connects.Load() > loops || srv.accepts.Load() != connects.Load() {
		t.Fatalf("%d bad calls, %d connects, %d accepted (want 0, <= %d, equal)", bad.Load(), connects.Load(), srv.accepts.Load(), loops)
	}

	garbage := startTCP(t, lineReply("nope\n"))
	g := newTCPTest(t, protocol.SocketDesc{Address: garbage.addr, Send: []byte("ping\n"), ExpectBytes: []byte("ping\n"), KeepAlive: true}, 5*time.Second)
	for range 3 {
		if r := g.Call(context.Background()); r.Status != sample.Failed {
			t.Fatalf("bad reply: %+v", r)
		}
	}
	if n := garbage.accepts.Load(); n != 3 {
		t.Fatalf("%d connections for 3 failed calls: a failed connection was reused", n)
	}
}

// TestTCPKeepAliveStale: a pooled connection the server closed while idle
// costs the next call a reconnect, not a failure.
func TestTCPKeepAliveStale(t *testing.T) {
	t.Parallel()
	once := startTCP(t, func(c net.Conn) { // answers one request, then closes
		buf := make([]byte, 5)
		if _, err := io.ReadFull(c, buf); err == nil {
			_, _ = c.Write(buf)
		}
	})
	c := newTCPTest(t, protocol.SocketDesc{Address: once.addr, Send: []byte("ping\n"), ExpectLength: 5, KeepAlive: true}, 5*time.Second)
	for i := range 5 {
		if r := c.Call(context.Background()); r.Status != sample.OK || r.Phases.Connect == 0 {
			t.Fatalf("call %d: %+v", i, r)
		}
		time.Sleep(5 * time.Millisecond) // let the close arrive
	}
}

// TestTCPClose: Close closes the idle pooled connections (the server sees
// them end), and a client closed does not pool again.
func TestTCPClose(t *testing.T) {
	t.Parallel()
	ended := make(chan struct{}, 4)
	srv := startTCP(t, func(c net.Conn) { echo(c); ended <- struct{}{} })
	c, err := NewTCP(protocol.SocketDesc{Address: srv.addr, Send: []byte("x"), ExpectLength: 1, KeepAlive: true}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Call(context.Background()); r.Status != sample.OK {
		t.Fatal(r)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the pooled connection stayed open after Close")
	}
	if r := c.Call(context.Background()); r.Status != sample.OK || len(c.idle) != 0 {
		t.Fatalf("after Close: %+v, %d idle", r, len(c.idle))
	}
}

// TestTCPCancelled: a call cut off by its context is Cancelled, at once.
func TestTCPCancelled(t *testing.T) {
	t.Parallel()
	srv := startTCP(t, silent)
	c := newTCPTest(t, protocol.SocketDesc{Address: srv.addr, Send: []byte("ping\n"), ExpectLength: 5, KeepAlive: true}, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	r := c.Call(ctx)
	if r.Status != sample.Cancelled || time.Since(start) > 30*time.Second {
		t.Fatalf("%+v after %v", r, time.Since(start))
	}
	if len(c.idle) != 0 {
		t.Fatal("a cancelled call's connection was pooled")
	}
}

// TestTCPFloodBounded: a server sending 100 MB does not make the client
// keep it: a pattern that never matches stops at protocol.MaxPayload, an
// expected length stops there, and reading until close counts the bytes
// and drops them.
func TestTCPFloodBounded(t *testing.T) {
	srv := startTCP(t, flood)
	tests := []struct {
		name  string
		desc  protocol.SocketDesc
		want  sample.Status
		bytes int64
	}{
		{"pattern never matches", protocol.SocketDesc{Address: srv.addr, ExpectPattern: "y"}, sample.Failed, protocol.MaxPayload},
		{"length", protocol.SocketDesc{Address: srv.addr, ExpectLength: 1000}, sample.OK, 1000},
		{"prefix", protocol.SocketDesc{Address: srv.addr, ExpectBytes: []byte("xx")}, sample.OK, 2},
		{"until close", protocol.SocketDesc{Address: srv.addr}, sample.OK, 100 << 20},
	}
	for _, tt := range tests {
		c := newTCPTest(t, tt.desc, 20*time.Second)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := c.Call(context.Background())
		runtime.ReadMemStats(&after)
		if r.Status != tt.want || r.Bytes != tt.bytes {
			t.Errorf("%s: %v, %d bytes (%s); want %v, %d bytes", tt.name, r.Status, r.Bytes, r.Err, tt.want, tt.bytes)
		}
		// The server's own 64 KB chunk and the test's allocations are in
		// this figure too; a client keeping what it reads would show MBs.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*protocol.MaxPayload+(1<<20) {
			t.Errorf("%s: %d bytes allocated during the call (read %d)", tt.name, alloc, r.Bytes)
		}
	}
}
