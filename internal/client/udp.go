package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// maxDatagram is the largest UDP payload (IPv4): a reply is read whole.
const maxDatagram = 65507

// UDP is the built-in udp client (protocol.ClientUDP). A call sends Send
// as one datagram from a connected socket and waits, up to the Spec
// timeout, for one reply datagram: none by then is Lost ("no reply within
// 2s"); a reply that fails the expectation (ExpectBytes a prefix,
// ExpectLength a minimum length, ExpectPattern a match of the datagram)
// is Failed; an ICMP port unreachable (the kernel reports it on a
// connected socket) is Failed, "connection refused". Reply.Bytes is the
// datagram sent plus the one received.
//
// Sockets are pooled between calls (one bind and connect saves about half
// of a call's cost; see BenchmarkUDPEcho). A late reply to an earlier call
// must not be taken for a later call's reply; the guard is that a socket
// is reused only after a call that got its reply and found it good: a
// socket whose call was lost, failed, timed out or was cancelled is
// closed, so a reused socket has no request outstanding and the next
// datagram it receives answers the next request. (A payload is fixed, so
// no per-call nonce can tell replies apart.) What the guard cannot catch
// is a peer or network that answers one request twice; on loopback and
// LANs this does not happen, and an expectation catches it when replies
// differ. A connected socket takes datagrams only from the address it is
// connected to.
type UDP struct {
	desc    protocol.SocketDesc
	exp     expect
	timeout time.Duration
	fresh   bool // a new socket per call (for the benchmark's comparison)

	pool // the idle sockets
}

var _ Client = (*UDP)(nil)

// NewUDP builds a udp client for d (checked by protocol.SocketDesc.Validate)
// whose calls wait at most timeout for their reply.
func NewUDP(d protocol.SocketDesc, timeout time.Duration) (*UDP, error) {
	if err := d.Validate(protocol.ClientUDP); err != nil {
		return nil, err
	}
	exp, err := newExpect(&d)
	if err != nil {
		return nil, err
	}
	return &UDP{desc: d, exp: exp, timeout: timeout}, nil
}

// udpBuffers hold a reply datagram during a call (held by calls in
// flight only, never by idle sockets).
var udpBuffers = sync.Pool{New: func() any { return &buffer{b: make([]byte, maxDatagram)} }}

// Call makes one exchange (see UDP).
func (u *UDP) Call(ctx context.Context) Reply {
	var c net.Conn
	if !u.fresh {
		c = u.take()
	}
	if c == nil {
		var err error
		if c, err = net.Dial("udp", u.desc.Address); err != nil {
			return failure(ctx, 0, err)
		}
	}
	stop := watch(ctx, c)
	r := u.exchange(c)
	watched := stop()
	switch {
	case ctx.Err() != nil && r.Status != sample.OK:
		r.Status = sample.Cancelled
	case r.Status == sample.OK && watched && !u.fresh:
		u.put(c)
		return r
	}
	_ = c.Close()
	return r
}

// exchange sends the request on c and classes the reply.
func (u *UDP) exchange(c net.Conn) Reply {
	if err := c.SetDeadline(time.Now().Add(u.timeout)); err != nil {
		return Reply{Status: sample.Failed, Err: err.Error()}
	}
	w, err := c.Write(u.desc.Send)
	if err != nil {
		return Reply{Status: sample.Failed, Bytes: int64(w), Err: err.Error()}
	}
	buf := udpBuffers.Get().(*buffer)
	defer udpBuffers.Put(buf)
	n, err := c.Read(buf.b[:maxDatagram])
	r := Reply{Status: sample.OK, Bytes: int64(w + n)}
	switch {
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		r.Status, r.Err = sample.Lost, fmt.Sprintf("no reply within %v", u.timeout)
	case err != nil:
		r.Status, r.Err = sample.Failed, err.Error()
	default:
		if bad := u.exp.complete(buf.b[:n], int64(n)); bad != "" {
			r.Status, r.Err = sample.Failed, bad
		}
	}
	return r
}
