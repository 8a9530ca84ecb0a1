package preauth

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
)

// HTTPListener wraps an HTTP server's listener ln: each connection it
// accepts is admitted to pool, or closed at once when the pool has no
// room (Pool.Admit). A connection counts in the pool from its acceptance
// until one of its requests is Proved, or it is closed. It may be closed
// to make room until it has sent a whole request header (ConnState): a
// client's header comes whole within a round trip, and a peer that sends
// part of one and stalls holds no more than a silent one (bytes still
// waiting in the socket spare a connection too). The server must set
// ConnContext and ConnState (as its hooks of those names) so that Proved
// and ConnState find a request's connection, plain or TLS. A server using it should bound the time to a
// request's header (http.Server.ReadHeaderTimeout, e.g.
// FirstByteTimeout) and close a connection whose request did not prove
// itself (a "Connection: close" header on the refusal), so that no peer
// holds a place with request after request.
func HTTPListener(ln net.Listener, pool *Pool) net.Listener {
	return &limitedListener{Listener: ln, pool: pool}
}

// connKey is the context key of a request's connection.
type connKey struct{}

// ConnContext is the http.Server.ConnContext of a server on an
// HTTPListener: it keeps each connection in its requests' context.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// Proved records that r proved itself (it carried the server's
// credential): its connection leaves the pool of those not yet proved.
// It does nothing for a request whose connection is not counted.
func Proved(r *http.Request) {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	if u := unprovedOf(c); u != nil {
		u.e.Release()
	}
}

// ConnState is the http.Server.ConnState of a server on an HTTPListener:
// a connection that sent a whole request header (http.StateActive: its
// request goes to the handler, which proves it or refuses it) is no
// longer closed to make room.
func ConnState(c net.Conn, st http.ConnState) {
	if u := unprovedOf(c); u != nil && st == http.StateActive {
		u.e.Spoke()
	}
}

// unprovedOf is c as counted in a pool (under TLS: the connection
// beneath), nil when it is not.
func unprovedOf(c net.Conn) *unproved {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	u, _ := c.(*unproved)
	return u
}

// limitedListener admits each connection to pool, or closes it at once.
type limitedListener struct {
	net.Listener
	pool *Pool
}

func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		e, err := l.pool.Admit(c)
		if err != nil {
			c.Close()
			continue
		}
		return &unproved{Conn: c, e: e}, nil
	}
}

// unproved is a connection counted in the pool, given back when closed
// or proved.
type unproved struct {
	net.Conn
	e *Entry
}

func (c *unproved) Close() error {
	c.e.Release()
	return c.Conn.Close()
}
