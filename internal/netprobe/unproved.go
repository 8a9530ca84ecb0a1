package netprobe

import (
	"io"
	"net"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// Limits of the connections that have not proved membership yet (no
// request with the mesh token's proof): they are held in a pool of their
// own (package preauth: a new one over a cap closes the oldest silent
// one, else is closed at once), must send their first byte within
// preauth.FirstByteTimeout of their acceptance and the whole request
// within handshakeTimeout, and never take one of the MaxConns places of
// proved peers nor the bandwidth slot. A sensor sends its request as soon
// as it has the server's nonce: one round trip.
const (
	MaxUnproved          = 64
	maxUnprovedPerSource = 16
)

var unprovedLimits = preauth.Limits{Conns: MaxUnproved, PerSource: maxUnprovedPerSource}

// serveConn runs one connection: nonce, request and proof while counted in
// e (nil: not counted), then, in one of the MaxConns places, the test.
func (s *Server) serveConn(c net.Conn, e *preauth.Entry) {
	defer e.Release()
	req, nonce, raw, ok := s.prove(c, e)
	if !ok {
		s.refused.Add(1)
		return
	}
	e.Release()
	select {
	case s.conns <- struct{}{}:
	default:
		s.refused.Add(1)
		return
	}
	defer func() { <-s.conns }()
	s.serveTest(c, req, nonce, raw[:requestBody])
}

// prove sends the nonce and reads the request, its first byte within
// preauth.FirstByteTimeout and all of it within handshakeTimeout of the
// connection's acceptance, and checks its proof.
func (s *Server) prove(c net.Conn, e *preauth.Entry) (Request, []byte, []byte, bool) {
	accepted := e.Accepted()
	_ = c.SetDeadline(accepted.Add(handshakeTimeout))
	nonce := newNonce()
	if _, err := c.Write(nonce); err != nil {
		return Request{}, nil, nil, false
	}
	var rc net.Conn = c
	if e != nil {
		var err error
		if rc, err = preauth.WaitFirstByte(c, accepted.Add(preauth.FirstByteTimeout)); err != nil {
			return Request{}, nil, nil, false
		}
		e.Spoke()
		_ = c.SetReadDeadline(accepted.Add(handshakeTimeout))
	}
	raw := make([]byte, RequestSize)
	if _, err := io.ReadFull(rc, raw); err != nil {
		return Request{}, nil, nil, false
	}
	req, err := ParseRequest(s.token, nonce, raw)
	if err != nil {
		return Request{}, nil, nil, false
	}
	return req, nonce, raw, true
}

// until is when a test that starts now must be over, connection and all.
func until(testTime time.Duration) time.Time { return time.Now().Add(testTime + grace) }
