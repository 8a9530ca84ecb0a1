package relay

import (
	"io"
	"net"
	"sync"
	"syscall"
)

// readSize is the buffer a tester's bytes are read into: a batch frame at
// a million samples a second from a thousand testers is about this size.
const readSize = 32 << 10

var bufs = sync.Pool{New: func() any { b := make([]byte, readSize); return &b }}

// idleReader reads a connection holding a buffer only while it has bytes
// to pass on: on a TCP socket it waits for readability first (the raw
// connection's Read), so that an idle tester costs the relay no buffer.
type idleReader struct {
	nc  net.Conn
	raw syscall.RawConn // nil: read through nc
}

func newIdleReader(nc net.Conn) idleReader {
	r := idleReader{nc: nc}
	if sc, ok := nc.(syscall.Conn); ok {
		r.raw, _ = sc.SyscallConn()
	}
	return r
}

// read waits for bytes, reads what is there into a pooled buffer and
// hands it to use; io.EOF when the peer hung up. The buffer is taken only
// once there is something to read, and given back before read returns.
func (r idleReader) read(use func([]byte) error) error {
	var b *[]byte
	var n int
	var err error
	if r.raw == nil {
		b = bufs.Get().(*[]byte)
		n, err = r.nc.Read(*b)
	} else {
		b, n, err = r.rawRead()
	}
	if b == nil {
		return err
	}
	defer bufs.Put(b)
	if n > 0 {
		if uerr := use((*b)[:n]); uerr != nil {
			return uerr
		}
	}
	return err
}

// rawRead waits for the socket to be readable, parked in the poller with
// no buffer, then takes one and reads into it; a nil buffer comes with
// an error.
func (r idleReader) rawRead() (*[]byte, int, error) {
	var b *[]byte
	var n int
	var rerr error
	err := r.raw.Read(func(fd uintptr) bool {
		b = bufs.Get().(*[]byte)
		for {
			n, rerr = syscall.Read(int(fd), *b)
			if rerr != syscall.EINTR {
				break
			}
		}
		if rerr == syscall.EAGAIN {
			bufs.Put(b)
			b = nil
			return false
		}
		return true
	})
	if err == nil && rerr == nil && n == 0 {
		rerr = io.EOF
	}
	if err == nil {
		err = rerr
	}
	if err != nil {
		if b != nil {
			bufs.Put(b)
		}
		return nil, 0, err
	}
	return b, n, nil
}
