package preauth

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// loopback is a listener on 127.0.0.1 whose connections a test dials from
// chosen source addresses of 127.0.0.0/8.
type loopback struct {
	t  *testing.T
	ln net.Listener
}

func newLoopback(t *testing.T) *loopback {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return &loopback{t: t, ln: ln}
}

// dial connects from src and returns both ends: the peer's and the
// server's (accepted).
func (l *loopback) dial(src string) (peer, server net.Conn) {
	l.t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	peer, err := d.Dial("tcp", l.ln.Addr().String())
	if err != nil {
		l.t.Fatal(err)
	}
	server, err = l.ln.Accept()
	if err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { peer.Close(); server.Close() })
	return peer, server
}

// closedByServer reports whether the server closed peer's connection
// (waiting up to a second for it to show).
func closedByServer(peer net.Conn) bool {
	_ = peer.SetReadDeadline(time.Now().Add(time.Second))
	_, err := peer.Read(make([]byte, 1))
	return errors.Is(err, io.EOF)
}

// admit admits server to p, failing the test on a refusal.
func admit(t *testing.T, p *Pool, server net.Conn) *Entry {
	t.Helper()
	e, err := p.Admit(server)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestAdmitClosesTheOldestSilent fills a pool of 3: the next connection
// closes the oldest one that sent nothing, passing over the oldest of all,
// which has bytes waiting (its goroutine has not seen them yet); the pool
// still holds 3.
func TestAdmitClosesTheOldestSilent(t *testing.T) {
	t.Parallel()
	l := newLoopback(t)
	p := NewPool(Limits{Conns: 3, PerSource: 3})
	var peers []net.Conn
	for i := range 3 {
		peer, server := l.dial(fmt.Sprintf("127.0.0.%d", i+1))
		admit(t, p, server)
		peers = append(peers, peer)
	}
	if _, err := peers[0].Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // on loopback the byte is there at once; give it ample time
	_, server := l.dial("127.0.0.9")
	admit(t, p, server)
	if !closedByServer(peers[1]) {
		t.Error("the oldest silent connection is still open")
	}
	if closedByServer(peers[0]) {
		t.Error("a connection with a byte waiting was closed to make room")
	}
	if n := p.Held(); n != 3 {
		t.Errorf("the pool holds %d, want 3", n)
	}
}

// TestAdmitRefusesWhenAllSpoke has every place held by a connection that
// spoke: the next one is refused at once (ErrBusy), and admitted once a
// place is given back.
func TestAdmitRefusesWhenAllSpoke(t *testing.T) {
	t.Parallel()
	l := newLoopback(t)
	p := NewPool(Limits{Conns: 2, PerSource: 2})
	var held []*Entry
	for _, src := range []string{"127.0.0.1", "127.0.0.2"} {
		_, server := l.dial(src)
		e := admit(t, p, server)
		e.Spoke()
		held = append(held, e)
	}
	_, server := l.dial("127.0.0.3")
	if _, err := p.Admit(server); !errors.Is(err, ErrBusy) {
		t.Fatalf("a third connection: %v, want ErrBusy", err)
	}
	held[0].Release()
	held[0].Release() // again: nothing more
	admit(t, p, server)
	if n := p.Held(); n != 2 {
		t.Errorf("the pool holds %d, want 2", n)
	}
}

// TestPerSourceCap lets one source hold 2 of 10 places: its third
// connection closes its own oldest silent one, never another source's;
// when its two have spoken, its next is refused while the pool has room,
// and other sources are still admitted.
func TestPerSourceCap(t *testing.T) {
	t.Parallel()
	l := newLoopback(t)
	p := NewPool(Limits{Conns: 10, PerSource: 2})
	other, server := l.dial("127.0.0.2")
	admit(t, p, server)
	first, server := l.dial("127.0.0.5")
	admit(t, p, server)
	_, server = l.dial("127.0.0.5")
	second := admit(t, p, server)
	_, server = l.dial("127.0.0.5")
	third := admit(t, p, server)
	if !closedByServer(first) || closedByServer(other) {
		t.Fatal("over its cap, a source did not lose its own oldest silent connection alone")
	}
	second.Spoke()
	third.Spoke()
	_, server = l.dial("127.0.0.5")
	if _, err := p.Admit(server); !errors.Is(err, ErrBusy) {
		t.Errorf("a source over its cap, all its connections heard: %v, want ErrBusy", err)
	}
	_, server = l.dial("127.0.0.3")
	admit(t, p, server)
}

// TestWaitFirstByte checks the wait for a peer's first byte on a socket:
// it returns the socket itself with the byte still to be read; at the
// deadline when the peer sends nothing; io.EOF when it hangs up.
func TestWaitFirstByte(t *testing.T) {
	t.Parallel()
	l := newLoopback(t)
	peer, server := l.dial("127.0.0.1")
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = peer.Write([]byte("hi"))
	}()
	c, err := WaitFirstByte(server, time.Now().Add(10*time.Second))
	if err != nil || c != server {
		t.Fatalf("WaitFirstByte: %v, %T; want the socket itself", err, c)
	}
	b := make([]byte, 2)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "hi" {
		t.Errorf("read %q, %v after the wait; want \"hi\"", b, err)
	}

	_, server = l.dial("127.0.0.1")
	start := time.Now()
	if _, err := WaitFirstByte(server, start.Add(100*time.Millisecond)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a silent peer: %v, want a timeout", err)
	}
	if took := time.Since(start); took < 100*time.Millisecond || took > 5*time.Second {
		t.Errorf("a silent peer was given %v, want 100ms", took)
	}

	peer, server = l.dial("127.0.0.1")
	peer.Close()
	if _, err := WaitFirstByte(server, time.Now().Add(10*time.Second)); !errors.Is(err, io.EOF) {
		t.Errorf("a peer that hung up: %v, want io.EOF", err)
	}
}

// TestWaitFirstBytePipe checks the wait on a connection that is not a
// socket: the byte read is put back in front.
func TestWaitFirstBytePipe(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer a.Close()
	go func() { _, _ = a.Write([]byte("xyz")) }()
	c, err := WaitFirstByte(b, time.Now().Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 3)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "xyz" {
		t.Errorf("read %q, %v; want \"xyz\"", got, err)
	}
}

// TestForFiles checks the limits made from what the open-file limit
// leaves.
func TestForFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ free, conns, per int }{
		{0, MinConns, MinConns}, {400, 400, 64}, {4000, 4000, 500}, {1 << 20, MaxConns, MaxConns / 8},
	} {
		if got := ForFiles(tc.free); got.Conns != tc.conns || got.PerSource != tc.per {
			t.Errorf("ForFiles(%d) = %+v, want %d in all, %d per source", tc.free, got, tc.conns, tc.per)
		}
	}
	if FreeFiles(1<<62) != 0 {
		t.Error("a reserve over the limit leaves files free")
	}
}

// TestCloseAll closes every connection held, heard from or not, and
// refuses those that come after.
func TestCloseAll(t *testing.T) {
	t.Parallel()
	l := newLoopback(t)
	p := NewPool(Limits{Conns: 10, PerSource: 10})
	silent, server := l.dial("127.0.0.1")
	admit(t, p, server)
	spoke, server := l.dial("127.0.0.2")
	admit(t, p, server).Spoke()
	p.CloseAll()
	if !closedByServer(silent) || !closedByServer(spoke) {
		t.Error("a connection held is still open after CloseAll")
	}
	_, server = l.dial("127.0.0.3")
	if _, err := p.Admit(server); !errors.Is(err, ErrBusy) {
		t.Errorf("after CloseAll: %v, want ErrBusy", err)
	}
}
