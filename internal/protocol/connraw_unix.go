//go:build unix

package protocol

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// readRaw waits for the socket to be readable (the deadline set by
// SetReadDeadline applies), takes a buffer only then and reads into it.
func (f *frameReader) readRaw() error {
	var rerr error
	err := f.raw.Read(func(fd uintptr) bool {
		b := getBuf(readAhead)
		n, err := readFD(fd, *b)
		if err == syscall.EAGAIN {
			putBuf(b)
			return false
		}
		switch {
		case err != nil:
			putBuf(b)
			rerr = &net.OpError{Op: "read", Net: f.nc.LocalAddr().Network(), Source: f.nc.LocalAddr(),
				Addr: f.nc.RemoteAddr(), Err: os.NewSyscallError("read", err)}
		case n == 0:
			putBuf(b)
			rerr = io.EOF
		default:
			f.buf, f.r, f.w = b, 0, n
		}
		return true
	})
	var op *net.OpError
	if errors.As(err, &op) {
		op.Op = "read" // as a Read on the connection says it
	}
	if err != nil {
		return err
	}
	return rerr
}

// readFD is read(2), retried on EINTR.
func readFD(fd uintptr, b []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), b)
		if err != syscall.EINTR {
			return max(n, 0), err
		}
	}
}

// rawConn returns c's raw connection when c is a TCP or Unix socket (no
// wrapper, whose Read would be bypassed), else nil.
func rawConn(c net.Conn) syscall.RawConn {
	var sc syscall.Conn
	switch c := c.(type) {
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
