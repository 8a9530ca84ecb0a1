package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// TestMemoryConnects checks a round trip both ways and the addresses each
// end reports.
func TestMemoryConnects(t *testing.T) {
	t.Parallel()
	m := NewMemory()
	ln, err := m.Listen("controller:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	if host, port, err := net.SplitHostPort(addr); err != nil || host != "controller" || port == "0" {
		t.Fatalf("listener address %q: want controller:N with N > 0 (%v)", addr, err)
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	c, err := m.Dial(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()
	if c.RemoteAddr().String() != addr || s.LocalAddr().String() != addr ||
		s.RemoteAddr().String() != c.LocalAddr().String() || c.LocalAddr().Network() != MemNetwork {
		t.Errorf("addresses: client %v -> %v, server %v <- %v", c.LocalAddr(), c.RemoteAddr(), s.LocalAddr(), s.RemoteAddr())
	}
	go func() { _, _ = c.Write([]byte("ping")) }()
	buf := make([]byte, 4)
	if _, err := io.ReadFull(s, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("server read %q, %v", buf, err)
	}
	go func() { _, _ = s.Write([]byte("pong")) }()
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("client read %q, %v", buf, err)
	}
}

// TestMemoryRefuses checks the errors a TCP user would expect: nothing
// listening, an address in use, a closed listener.
func TestMemoryRefuses(t *testing.T) {
	t.Parallel()
	m := NewMemory()
	if _, err := m.Dial(context.Background(), "nobody:1"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial with no listener: %v, want ECONNREFUSED", err)
	}
	ln, err := m.Listen("a:7")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Listen("a:7"); !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("second listen on a:7: %v, want EADDRINUSE", err)
	}
	if _, err := m.Listen(""); err == nil {
		t.Error("listen on an empty address accepted")
	}
	pending, err := m.Dial(context.Background(), "a:7") // never accepted
	if err != nil {
		t.Fatal(err)
	}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("accept after close: %v, want net.ErrClosed", err)
	}
	if _, err := pending.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("read on a connection its listener closed before accepting: %v, want EOF", err)
	}
	if _, err := m.Dial(context.Background(), "a:7"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after close: %v, want ECONNREFUSED", err)
	}
	if _, err := m.Listen("a:7"); err != nil {
		t.Errorf("the address of a closed listener is not free again: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Dial(ctx, "a:7"); !errors.Is(err, context.Canceled) {
		t.Errorf("dial with a cancelled context: %v", err)
	}
}

// TestMemoryInBubble runs a connection inside a synctest bubble: a read
// deadline fires on fake time and Accept waits durably.
func TestMemoryInBubble(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		m := NewMemory()
		ln, err := m.Listen("srv:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			time.Sleep(time.Hour) // fake: the bubble moves on at once
			_, _ = c.Write([]byte("late"))
		}()
		c, err := m.Dial(t.Context(), ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_ = c.SetReadDeadline(start.Add(time.Minute))
		if _, err := c.Read(make([]byte, 4)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read past its deadline: %v", err)
		}
		if el := time.Since(start); el != time.Minute {
			t.Errorf("deadline fired after %v of fake time, want 1m", el)
		}
		_ = c.SetReadDeadline(time.Time{})
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "late" {
			t.Fatalf("read %q, %v", buf, err)
		}
		c.Close()
		ln.Close()
	})
}
