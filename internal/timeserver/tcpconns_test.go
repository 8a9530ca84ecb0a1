package timeserver

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// startTCPLimits serves a new Server held to lim on a loopback TCP
// listener until the test ends.
func startTCPLimits(t *testing.T, lim tcpLimits) (*Server, string) {
	t.Helper()
	s := New(Config{})
	s.tcpLim = lim
	return startTCPWith(t, s)
}

// dialFrom opens a TCP connection to addr from the loopback address src
// (any of 127/8 is a source of its own).
func dialFrom(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: patience}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// ask sends one request with t1 on c and reports whether it was answered.
func ask(c net.Conn, t1 int64) error {
	c.SetDeadline(time.Now().Add(patience))
	if _, err := c.Write(AppendRequest(nil, t1)); err != nil {
		return err
	}
	buf := make([]byte, ResponseSize)
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	got, _, _, err := ParseResponse(buf)
	if err == nil && got != t1 {
		err = errors.New("answer to another request")
	}
	return err
}

// closedByServer waits until the server closes c (a read returns EOF or
// a reset), and fails t if it does not within patience.
func closedByServer(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("%s: still open (%v)", what, err)
	}
}

// TestIdleHogDoesNotKeepTestersOut is issue 8's row 8 on the time server:
// one source holds 511 idle connections; a tester of another source and
// one of the same source are still served, and the hog holds no more than
// its pending cap.
func TestIdleHogDoesNotKeepTestersOut(t *testing.T) {
	t.Parallel()
	lim := defaultTCPLimits
	lim.firstRequest = time.Hour // the hog's connections stay as long as the limits let them
	s, addr := startTCPLimits(t, lim)
	hog := make([]net.Conn, 511)
	for i := range hog {
		hog[i] = dialFrom(t, "127.0.0.2", addr)
	}
	// the connections are accepted in order: ask through the last one
	// so that every earlier one has been admitted
	if err := ask(hog[len(hog)-1], 1); err != nil {
		t.Fatalf("the hog's last connection: %v", err)
	}
	for _, src := range []string{"127.0.0.1", "127.0.0.2"} {
		for i := range 20 {
			if err := ask(dialFrom(t, src, addr), int64(100+i)); err != nil {
				t.Fatalf("a tester of %s (connection %d) while one source hogs: %v", src, i, err)
			}
		}
	}
	// all but the last maxPendingPerSource of the hog's idle connections
	// were closed to make room for its newer ones
	closedByServer(t, hog[0], "the hog's first connection")
	if st := s.Stats(); st.ConnsClosed < uint64(len(hog)-maxPendingPerSource-1) {
		t.Errorf("closed %d connections, want at least %d", st.ConnsClosed, len(hog)-maxPendingPerSource-1)
	}
}

func TestPendingConnectionTimesOut(t *testing.T) {
	t.Parallel()
	lim := defaultTCPLimits
	lim.firstRequest = 50 * time.Millisecond
	lim.idle = time.Hour
	s, addr := startTCPLimits(t, lim)
	idle := dialFrom(t, "127.0.0.1", addr)
	busy := dialFrom(t, "127.0.0.1", addr)
	if err := ask(busy, 1); err != nil {
		t.Fatal(err)
	}
	closedByServer(t, idle, "a connection that never sent a request")
	// the proven connection outlives the first-request timeout: one
	// opened after it has timed out
	closedByServer(t, dialFrom(t, "127.0.0.1", addr), "a later idle connection")
	if err := ask(busy, 2); err != nil {
		t.Errorf("a proven connection after the first-request timeout: %v", err)
	}
	if st := s.Stats(); st.ConnsClosed != 2 {
		t.Errorf("closed %d, want 2", st.ConnsClosed)
	}
}

func TestFullServerMakesRoom(t *testing.T) {
	t.Parallel()
	// eight sources fill the server with pending connections: a new one
	// closes the oldest
	lim := tcpLimits{maxConns: 8, maxPendingPerSrc: 16, firstRequest: time.Hour, idle: time.Hour, evictIdle: time.Hour}
	_, addr := startTCPLimits(t, lim)
	var pending []net.Conn
	for i := range 8 {
		pending = append(pending, dialFrom(t, netip.AddrFrom4([4]byte{127, 0, 1, byte(i)}).String(), addr))
		// accepted in the order dialled, by one goroutine: the first is the oldest
	}
	c := dialFrom(t, "127.0.0.1", addr)
	if err := ask(c, 1); err != nil {
		t.Fatalf("a tester on a server full of pending connections: %v", err)
	}
	closedByServer(t, pending[0], "the oldest pending connection")
	// now fill it with proven connections: busy ones are kept, a new one
	// is refused
	for _, p := range pending[1:] {
		if err := ask(p, 2); err != nil {
			t.Fatal(err)
		}
	}
	refused := dialFrom(t, "127.0.0.1", addr)
	closedByServer(t, refused, "a connection to a server full of busy ones")
	if err := ask(c, 3); err != nil {
		t.Errorf("a proven connection after a refusal: %v", err)
	}
}

func TestConnTableEvictsIdleProven(t *testing.T) {
	t.Parallel()
	var closed atomic.Uint64
	lim := tcpLimits{maxConns: 2, maxPendingPerSrc: 1, evictIdle: time.Second}
	table := newConnTable(lim, &closed)
	src := netip.MustParseAddr("192.0.2.1")
	t0 := time.Unix(1_700_000_000, 0)
	pipe := func() net.Conn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return a
	}
	a := table.admit(pipe(), src, t0)
	table.served(a, t0)
	b := table.admit(pipe(), src, t0.Add(100*time.Millisecond))
	table.served(b, t0.Add(900*time.Millisecond))
	// full of proven connections, none idle for a second: refused
	if c := table.admit(pipe(), src, t0.Add(500*time.Millisecond)); c != nil {
		t.Fatal("admitted over the cap with no connection idle")
	}
	// a idle for 1.5 s: closed for the new one
	c := table.admit(pipe(), src, t0.Add(1500*time.Millisecond))
	if c == nil || !a.closed || b.closed {
		t.Fatalf("admitted %v, a closed %v, b closed %v", c != nil, a.closed, b.closed)
	}
	// the pending cap of the source: c is its one pending connection, and
	// the next one closes it
	d := table.admit(pipe(), netip.MustParseAddr("192.0.2.1"), t0.Add(1600*time.Millisecond))
	if d == nil || !c.closed {
		t.Fatalf("pending cap: admitted %v, the older pending closed %v", d != nil, c.closed)
	}
	if open, pending := table.counts(src); open != 2 || pending != 1 || closed.Load() != 3 {
		t.Errorf("open %d, pending %d, closed %d; want 2, 1, 3", open, pending, closed.Load())
	}
	table.done(d)
	table.done(b)
	table.done(a) // already gone: no effect
	if open, pending := table.counts(src); open != 0 || pending != 0 {
		t.Errorf("after done: open %d, pending %d", open, pending)
	}
}
