package netprobe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrBusy is returned when the far end is taking part in another bandwidth
// test (its own or a peer's): the caller counts it and retries later.
var ErrBusy = errors.New("netprobe: the far end is busy with another bandwidth test")

// Client runs tests against Servers.
type Client struct {
	// Token is the mesh token (the servers' token).
	Token []byte
	// Dial opens the connection; nil means a net.Dialer's DialContext.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// session is one authenticated test connection.
type session struct {
	conn        *countConn // what the test reads and writes, counted
	raw         net.Conn   // the connection itself
	nonce, body []byte     // the server's nonce and the request (without proof): what reports are bound to
	stop        func() bool
}

// Close closes the connection.
func (s *session) Close() {
	s.stop()
	s.raw.Close()
}

// traffic is what passed the session's socket so far (zero without one).
func (s *session) traffic() Traffic {
	if s == nil {
		return Traffic{}
	}
	return Traffic{Sent: s.conn.sent, Received: s.conn.received}
}

// open dials addr and runs the handshake of req, each step within
// AnswerTime(req.TestTime); on success the connection is ready for the
// test, its deadline is the test time plus grace, and ctx's end closes it.
// A session is returned for its traffic even when the handshake failed.
func (c *Client) open(ctx context.Context, addr string, req Request) (*session, error) {
	fail := func(err error) error {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("netprobe: %s test to %s: %w", req.Kind, addr, err)
	}
	wait := AnswerTime(req.TestTime)
	conn, err := c.dial(ctx, addr, wait)
	if err != nil {
		return nil, fail(fmt.Errorf("%w: %w", ErrUnreachable, err))
	}
	s := &session{conn: &countConn{Conn: conn}, raw: conn, stop: context.AfterFunc(ctx, func() { conn.Close() })}
	if s.nonce, s.body, err = c.handshake(s.conn, req, wait); err != nil {
		s.Close()
		return s, fail(err)
	}
	return s, nil
}

// dial connects to addr within wait.
func (c *Client) dial(ctx context.Context, addr string, wait time.Duration) (net.Conn, error) {
	dial := c.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	dctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	conn, err := dial(dctx, "tcp", addr)
	if err != nil && ctx.Err() == nil && dctx.Err() != nil {
		return nil, fmt.Errorf("no connection within %v: %w", wait, err)
	}
	return conn, err
}

// handshake reads the server's nonce, sends the request and checks the
// server's answer, waiting at most wait for each. A peer that does not
// answer, or not as a holder of the mesh token, is ErrUnreachable; its
// answers (busy, or another) are not.
func (c *Client) handshake(conn net.Conn, req Request, wait time.Duration) (nonce, body []byte, err error) {
	_ = conn.SetDeadline(time.Now().Add(wait))
	nonce = make([]byte, NonceSize)
	if _, err := io.ReadFull(conn, nonce); err != nil {
		return nil, nil, fmt.Errorf("%w: reading the server's nonce (waited at most %v): %w", ErrUnreachable, wait, err)
	}
	raw, err := EncodeRequest(c.Token, nonce, req)
	if err != nil {
		return nil, nil, err
	}
	if _, err := conn.Write(raw); err != nil {
		return nil, nil, fmt.Errorf("%w: sending the request: %w", ErrUnreachable, err)
	}
	_ = conn.SetDeadline(time.Now().Add(wait))
	reply := make([]byte, replySize)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return nil, nil, fmt.Errorf("%w: no answer to the request within %v (a wrong mesh token is answered by a closed connection): %w", ErrUnreachable, wait, err)
	}
	body = raw[:requestBody]
	switch {
	case !equalMAC(reply[1:], replyMAC(c.Token, nonce, body, reply[0])):
		return nil, nil, fmt.Errorf("%w: the server's answer has a wrong proof: not a holder of the mesh token", ErrUnreachable)
	case reply[0] == statusBusy:
		return nil, nil, ErrBusy
	case reply[0] != statusOK:
		return nil, nil, fmt.Errorf("unknown answer %d", reply[0])
	}
	_ = conn.SetDeadline(time.Now().Add(req.TestTime + grace))
	return nonce, body, nil
}
