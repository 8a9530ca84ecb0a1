package preauth

import (
	"io"
	"net"
	"time"
)

// WaitFirstByte waits until nc has a byte to read, or by, whichever comes
// first: an error (a timeout, io.EOF, or the connection closed to make
// room) when no byte came. The byte is not taken: the connection to read
// from is returned (nc itself for a socket; else nc with the byte read
// put back in front). It leaves nc with no read deadline.
func WaitFirstByte(nc net.Conn, by time.Time) (net.Conn, error) {
	if err := nc.SetReadDeadline(by); err != nil {
		return nc, err
	}
	defer nc.SetReadDeadline(time.Time{})
	if ok, err := peekWait(nc); ok {
		return nc, err
	}
	var b [1]byte
	n, err := nc.Read(b[:])
	if n == 0 {
		if err == nil {
			err = io.ErrNoProgress
		}
		return nc, err
	}
	return &prefixed{Conn: nc, first: b[:1]}, nil
}

// prefixed is a connection whose first bytes were read already.
type prefixed struct {
	net.Conn
	first []byte
}

func (c *prefixed) Read(p []byte) (int, error) {
	if len(c.first) > 0 {
		n := copy(p, c.first)
		c.first = c.first[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}
