package netprobe

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// blackHole is a loopback listener whose accept queue is full and never
// drained: the kernel drops further SYNs, so a connect to it hangs as one
// to a host whose packets go nowhere.
func blackHole(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*syscall.SockaddrInet4).Port}).String()
	for i := 0; ; i++ { // fill the queue until a connect hangs
		c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
		if err != nil {
			return addr
		}
		t.Cleanup(func() { c.Close() })
		if i == 16 {
			t.Fatal("the accept queue never filled")
		}
	}
}

// silent is a loopback server that accepts and never answers.
func silent(t *testing.T) string {
	t.Helper()
	ln, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().String()
}

// A peer that never connects (its SYNs dropped) or never answers costs a
// test about its test time (1 s here), not the kernel's ~130 s of SYN
// retries or the server side's 5 s handshake timeout.
func TestDeadPeerCostsSeconds(t *testing.T) {
	const testTime = time.Second
	for _, tc := range []struct{ name, addr string }{{"black hole", blackHole(t)}, {"silent", silent(t)}} {
		for _, kind := range []string{"bandwidth", "latency"} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			c := &Client{Token: testToken}
			start := time.Now()
			var err error
			if kind == "bandwidth" {
				_, err = c.Bandwidth(ctx, tc.addr, testTime)
			} else {
				_, err = c.Latency(ctx, tc.addr, testTime, 1)
			}
			took := time.Since(start)
			cancel()
			// the wait is the test time; what is above it is this busy machine's scheduling
			if err == nil || took < testTime || took > testTime+time.Second {
				t.Errorf("%s test to a %s peer: %v after %v; want an error after %v", kind, tc.name, err, took, testTime)
			}
		}
	}
}

// A peer that does not answer is ErrUnreachable (no test ran); one that
// answers busy is not: it is alive and tried again soon.
func TestUnreachableIsNotBusy(t *testing.T) {
	ctx := context.Background()
	c := &Client{Token: testToken}
	if _, err := c.Latency(ctx, silent(t), Bin, 1); !errors.Is(err, ErrUnreachable) {
		t.Errorf("a silent peer: %v, want ErrUnreachable", err)
	}
	closed, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	if _, err := c.Bandwidth(ctx, closed.Addr().String(), Bin); !errors.Is(err, ErrUnreachable) {
		t.Errorf("a closed port: %v, want ErrUnreachable", err)
	}
	slot := &Slot{}
	_, addr := startServer(t, slot)
	if !slot.TryAcquire() {
		t.Fatal("a new slot is held")
	}
	defer slot.Release()
	if _, err := c.Bandwidth(ctx, addr, Bin); !errors.Is(err, ErrBusy) || errors.Is(err, ErrUnreachable) {
		t.Errorf("a busy peer: %v, want ErrBusy and not ErrUnreachable", err)
	}
	if _, err := (&Client{Token: []byte("not-the-mesh-token-at-all-0123")}).Latency(ctx, addr, Bin, 1); !errors.Is(err, ErrUnreachable) {
		t.Errorf("a peer without our token: %v, want ErrUnreachable", err)
	}
}
