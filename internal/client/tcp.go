package client

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// TCP is the built-in tcp client (protocol.ClientTCP). A call connects (or,
// with KeepAlive, takes an idle connection from a pool that every client
// loop of the tester shares), writes Send, then reads the reply until the
// expectation is met:
//
//   - ExpectLength: that many bytes (ExpectBytes and ExpectPattern, if set,
//     are then checked on them);
//   - else ExpectPattern: until the bytes read so far match the RE2
//     pattern (and start with ExpectBytes if set), at most
//     protocol.MaxPayload bytes; no match by then is a bad reply (bytes
//     past the match that came in the same read are dropped);
//   - else ExpectBytes: len(ExpectBytes) bytes, which must equal them;
//   - nothing expected: until the peer closes; with KeepAlive, whatever
//     the first read returns (one segment: a reply split across segments
//     leaves its tail to the next call on that connection, so set an
//     expectation for replies of more than a few KB). Send may be empty:
//     the call then reads what the server says first (a banner).
//
// A reply that differs from ExpectBytes is known bad at its first wrong
// byte and the call ends there. Bytes not needed by a check are counted
// and dropped, so a server sending without end costs no memory (only the
// call's timeout bounds the time spent reading until close).
//
// ConnectOnly: a call is the connect alone, then close (KeepAlive is
// ignored). Reply.Bytes is the bytes written plus read; Reply.Phases.Connect
// is the connect time when the call connected.
//
// A bad reply is Failed, its text saying what was expected and quoting
// the first bytes got; the Spec timeout (a deadline on the whole call,
// connect included) is Timeout; the caller's context done is Cancelled; a
// refused or reset connection is Failed. A connection whose call did not
// succeed is closed, never reused. With KeepAlive, a call whose reused
// connection turns out closed by the peer before any reply byte (an idle
// timeout on the server) is made again once on a new connection.
type TCP struct {
	desc    protocol.SocketDesc
	exp     expect
	timeout time.Duration

	pool // KeepAlive: the connections between calls
}

var _ Client = (*TCP)(nil)

// NewTCP builds a tcp client for d (checked by protocol.SocketDesc.Validate)
// whose calls last at most timeout.
func NewTCP(d protocol.SocketDesc, timeout time.Duration) (*TCP, error) {
	if err := d.Validate(protocol.ClientTCP); err != nil {
		return nil, err
	}
	exp, err := newExpect(&d)
	if err != nil {
		return nil, err
	}
	return &TCP{desc: d, exp: exp, timeout: timeout}, nil
}

// Call makes one exchange (see TCP).
func (t *TCP) Call(ctx context.Context) Reply {
	deadline := time.Now().Add(t.timeout)
	if t.desc.ConnectOnly {
		c, r := t.dial(ctx, deadline)
		if c != nil {
			_ = c.Close()
		}
		return r
	}
	var c net.Conn
	if t.desc.KeepAlive {
		c = t.take()
	}
	reused := c != nil
	var r Reply
	if c == nil {
		if c, r = t.dial(ctx, deadline); c == nil {
			return r
		}
	}
	r, stale := t.exchange(ctx, c, deadline, r)
	if reused && stale {
		if c, r = t.dial(ctx, deadline); c == nil {
			return r
		}
		r, _ = t.exchange(ctx, c, deadline, r)
	}
	return r
}

// staleConn reports whether err, after no reply byte, says the connection
// had been closed by the peer.
func staleConn(err error) bool {
	return errors.Is(err, errClosedEarly) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// dial connects, by deadline; r carries the connect time or the failure.
func (t *TCP) dial(ctx context.Context, deadline time.Time) (net.Conn, Reply) {
	d := net.Dialer{Deadline: deadline}
	start := time.Now()
	c, err := d.DialContext(ctx, "tcp", t.desc.Address)
	if err != nil {
		return nil, failure(ctx, 0, err)
	}
	return c, Reply{Status: sample.OK, Phases: sample.Phases{Connect: time.Since(start).Nanoseconds()}}
}

// exchange writes Send on c and reads the reply; r holds the connect
// phase, if any. c is pooled again (KeepAlive, success) or closed. stale
// reports a connection found closed by the peer before any reply byte.
func (t *TCP) exchange(ctx context.Context, c net.Conn, deadline time.Time, r Reply) (_ Reply, stale bool) {
	stop := watch(ctx, c)
	n, read, bad, err := t.roundTrip(c, deadline)
	watched := stop()
	r.Bytes = n
	switch {
	case err != nil:
		connect := r.Phases.Connect
		r = failure(ctx, n, err)
		r.Phases.Connect = connect
	case bad != "":
		r.Status, r.Err = sample.Failed, bad
	}
	if r.Status == sample.OK && watched && t.desc.KeepAlive {
		t.put(c)
	} else {
		_ = c.Close()
	}
	return r, err != nil && read == 0 && ctx.Err() == nil && staleConn(err)
}

// roundTrip writes the request and reads the reply, by deadline: it
// returns the bytes moved and read, and a mismatch text or an error.
func (t *TCP) roundTrip(c net.Conn, deadline time.Time) (moved, read int64, bad string, err error) {
	if err = c.SetDeadline(deadline); err != nil {
		return 0, 0, "", err
	}
	var w int
	if len(t.desc.Send) > 0 {
		if w, err = c.Write(t.desc.Send); err != nil {
			return int64(w), 0, "", err
		}
	}
	buf := buffers.Get().(*buffer)
	defer buffers.Put(buf)
	n, bad, err := t.exp.readReply(c, buf, t.desc.KeepAlive)
	return int64(w) + n, n, bad, err
}
