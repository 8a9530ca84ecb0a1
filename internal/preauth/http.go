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
// until one of its requests is Proved, or it is closed, and may be closed
// to make room until then, whatever it sent: a client's request header
// comes whole within a round trip, and a peer that sends part of one and
// stalls holds no more than a silent one (only bytes still waiting in the
// socket spare a connection). The server must set
// ConnContext (as its ConnContext) so that Proved finds a request's
// connection, plain or TLS. A server using it should bound the time to a
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
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if u, ok := c.(*unproved); ok {
		u.e.Release()
	}
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
