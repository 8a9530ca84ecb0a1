package dashboard

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// Limits of the dashboard's connections that have not proved themselves
// (no request with the token yet): as for the controller's port (package
// preauth), a new one over a cap closes the oldest silent one, else is
// closed at once; the whole header of a request must come within
// preauth.FirstByteTimeout; a request without the token gets its 401 and
// the connection closed. A browser opens a few connections at once and
// proves itself with its first request.
const (
	MaxUnproved          = 32
	maxUnprovedPerSource = 8
	// idleTimeout bounds a proved browser's keep-alive connection
	// between two requests.
	idleTimeout = time.Minute
)

// newHTTPServer is the dashboard's server of h, its connections counted
// in pool until they prove themselves.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: preauth.FirstByteTimeout, IdleTimeout: idleTimeout,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }}
}

// connKey is the context key of a request's connection.
type connKey struct{}

// proved records that r came with the token: its connection leaves the
// pool of those not yet proved.
func proved(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*unproved); ok {
		c.e.Release()
	}
}

// limitedListener admits each connection to pool, or closes it at once.
type limitedListener struct {
	net.Listener
	pool *preauth.Pool
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

// unproved is a connection counted in the pool: heard from at its first
// byte, given back when closed or proved.
type unproved struct {
	net.Conn
	e     *preauth.Entry
	heard sync.Once
}

func (c *unproved) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.heard.Do(c.e.Spoke)
	}
	return n, err
}

func (c *unproved) Close() error {
	c.e.Release()
	return c.Conn.Close()
}
