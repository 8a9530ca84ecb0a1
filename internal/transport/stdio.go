package transport

import (
	"io"
	"net"
	"sync"
)

// Stdio returns a connection over a byte stream pair, such as a process's
// stdin and stdout or an SSH session's: reads come from r, writes go to w.
// It is a full net.Conn (deadlines included): its ends are copied through
// a net.Pipe. Close closes r and w when they are Closers, after which
// reads and writes fail; when r ends, reads see io.EOF. local and remote
// name the two ends in LocalAddr and RemoteAddr.
func Stdio(r io.Reader, w io.Writer, local, remote string) net.Conn {
	mine, theirs := net.Pipe()
	c := &stdioConn{Conn: mine, local: stdioAddr(local), remote: stdioAddr(remote), r: r, w: w}
	go func() { // the stream's bytes, read through the pipe
		_, _ = io.Copy(theirs, r)
		theirs.Close()
	}()
	go func() { // bytes written to the pipe, to the stream
		_, err := io.Copy(w, theirs)
		if err != nil {
			theirs.Close() // the stream is gone: writes must fail, not block
		}
		if wc, ok := w.(io.Closer); ok {
			_ = wc.Close()
		}
	}()
	return c
}

type stdioConn struct {
	net.Conn
	local, remote stdioAddr
	r             io.Reader
	w             io.Writer
	once          sync.Once
}

func (c *stdioConn) LocalAddr() net.Addr  { return c.local }
func (c *stdioConn) RemoteAddr() net.Addr { return c.remote }

// Close closes the pipe and the streams.
func (c *stdioConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		if rc, ok := c.r.(io.Closer); ok {
			_ = rc.Close()
		}
		if wc, ok := c.w.(io.Closer); ok {
			_ = wc.Close()
		}
	})
	return err
}

// stdioAddr names one end of a Stdio connection.
type stdioAddr string

func (stdioAddr) Network() string  { return "stdio" }
func (a stdioAddr) String() string { return string(a) }
