//go:build linux

package client

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRecvStamp: bytes read 30 ms after they came carry the kernel's
// receive time, 30 ms or more before the read, not the read's time. The
// kernel turns receive stamping on a moment after the first socket asks
// (net_enable_timestamp defers it to a work queue), so a segment that
// arrives in that moment has no stamp: a few rounds are allowed for that,
// and a stamp, when there is one, must be the kernel's.
func TestRecvStamp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go answerEach(ln)
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
	for round := 0; round < 5; round++ {
		ts, read := stampedRound(t, c, fd)
		if ts == 0 {
			continue // stamping not on yet in the kernel
		}
		if read-ts < int64(30*time.Millisecond) {
			t.Fatalf("stamp is %v before the read, want the kernel's receive time, 30 ms or more before", time.Duration(read-ts))
		}
		return
	}
	t.Fatal("no receive stamp in 5 rounds")
}

// answerEach answers every 2 bytes the first connection sends with "answer".
func answerEach(ln net.Listener) {
	c, err := ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	b := make([]byte, 2)
	for {
		if _, err := c.Read(b); err != nil {
			return
		}
		if _, err := c.Write([]byte("answer")); err != nil {
			return
		}
	}
}

// stampedRound asks for one answer, lets it wait 30 ms received, and reads
// it with its stamp; it returns the stamp (0 when none) and the read time.
func stampedRound(t *testing.T, c net.Conn, fd int) (ts, read int64) {
	t.Helper()
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
	read = time.Now().UnixNano()
	if err != nil || string(buf[:n]) != "answer" {
		t.Fatalf("read %q, %v", buf[:max(n, 0)], err)
	}
	return ts, read
}
