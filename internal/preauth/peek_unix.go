//go:build unix

package preauth

import (
	"io"
	"net"
	"syscall"
)

// rawOf returns nc's raw connection when nc is a socket this package can
// peek at, else nil.
func rawOf(nc net.Conn) syscall.RawConn {
	var sc syscall.Conn
	switch c := nc.(type) {
	case *net.TCPConn:
		sc = c
	case *net.UnixConn:
		sc = c
	default:
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// peekWait waits, parked in the poller with no buffer, until nc's socket
// has a byte to read (MSG_PEEK: the byte stays there), within nc's read
// deadline. ok is false when nc is not such a socket (nothing was done).
func peekWait(nc net.Conn) (ok bool, err error) {
	rc := rawOf(nc)
	if rc == nil {
		return false, nil
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, rerr = peek(fd, 0)
		return rerr != syscall.EAGAIN
	})
	switch {
	case err != nil:
		return true, err
	case rerr != nil:
		return true, rerr
	case n == 0:
		return true, io.EOF
	}
	return true, nil
}

// pending reports whether nc's socket has bytes waiting to be read,
// without waiting and without taking them.
func pending(nc net.Conn) bool {
	rc := rawOf(nc)
	if rc == nil {
		return false
	}
	n := 0
	_ = rc.Control(func(fd uintptr) { n, _ = peek(fd, syscall.MSG_DONTWAIT) })
	return n > 0
}

// peek is recv(fd, 1 byte, MSG_PEEK|flags), retried on EINTR.
func peek(fd uintptr, flags int) (int, error) {
	var b [1]byte
	for {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|flags)
		if err != syscall.EINTR {
			return max(n, 0), err
		}
	}
}
