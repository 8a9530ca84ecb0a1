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
	conn        net.Conn
	nonce, body []byte // the server's nonce and the request (without proof): what reports are bound to
	stop        func() bool
}

// Close closes the connection.
func (s *session) Close() {
	s.stop()
	s.conn.Close()
}

// open dials addr and runs the handshake of req; on success the connection
// is ready for the test, its deadline is the test time plus grace, and
// ctx's end closes it.
func (c *Client) open(ctx context.Context, addr string, req Request) (*session, error) {
	dial := c.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	conn, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("netprobe: %s test to %s: %w", req.Kind, addr, err)
	}
	s := &session{conn: conn, stop: context.AfterFunc(ctx, func() { conn.Close() })}
	if s.nonce, s.body, err = c.handshake(conn, req); err != nil {
		s.Close()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("netprobe: %s test to %s: %w", req.Kind, addr, err)
	}
	return s, nil
}

// handshake reads the server's nonce, sends the request and checks the
// server's answer.
func (c *Client) handshake(conn net.Conn, req Request) (nonce, body []byte, err error) {
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
	nonce = make([]byte, NonceSize)
	if _, err := io.ReadFull(conn, nonce); err != nil {
		return nil, nil, fmt.Errorf("reading the server's nonce: %w", err)
	}
	raw, err := EncodeRequest(c.Token, nonce, req)
	if err != nil {
		return nil, nil, err
	}
	if _, err := conn.Write(raw); err != nil {
		return nil, nil, fmt.Errorf("sending the request: %w", err)
	}
	reply := make([]byte, replySize)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return nil, nil, fmt.Errorf("no answer to the request (a wrong mesh token is answered by a closed connection): %w", err)
	}
	body = raw[:requestBody]
	switch {
	case !equalMAC(reply[1:], replyMAC(c.Token, nonce, body, reply[0])):
		return nil, nil, errors.New("the server's answer has a wrong proof: not a holder of the mesh token")
	case reply[0] == statusBusy:
		return nil, nil, ErrBusy
	case reply[0] == statusRefused:
		return nil, nil, ErrRefused
	case reply[0] != statusOK:
		return nil, nil, fmt.Errorf("unknown answer %d", reply[0])
	}
	_ = conn.SetDeadline(time.Now().Add(req.TestTime + grace))
	return nonce, body, nil
}
