//go:build linux

package client

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRecvStamp: bytes read 30 ms after they came carry the kernel's
// receive time, 30 ms or more before the read, not the read's time.
func TestRecvStamp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 2)
		if _, err := c.Read(b); err == nil { // the client's time stamps are on
			_, _ = c.Write([]byte("answer"))
			_, _ = c.Read(b)
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("go")); err != nil {
		t.Fatal(err)
	}
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if _, err := unix.Poll(pfd, 10_000); err != nil || pfd[0].Revents&unix.POLLIN == 0 {
		t.Fatalf("no answer: %v", err)
	}
	time.Sleep(30 * time.Millisecond) // the answer waits, received
	var x rxBuf
	buf := make([]byte, 64)
	n, ts, err := x.rawRecvTS(fd, buf)
	read := time.Now().UnixNano()
	if err != nil || string(buf[:n]) != "answer" {
		t.Fatalf("read %q, %v", buf[:max(n, 0)], err)
	}
	if ts == 0 || read-ts < int64(30*time.Millisecond) {
		t.Fatalf("stamp %d is %v before the read, want the kernel's receive time, 30 ms or more before", ts, time.Duration(read-ts))
	}
}
