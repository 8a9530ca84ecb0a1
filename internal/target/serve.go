package target

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// ShutdownTimeout bounds how long Serve waits for in-flight calls when its
// context ends before closing the remaining connections.
const ShutdownTimeout = 3 * time.Second

// newHTTPServer returns an http.Server for s with sensible timeouts. There
// is no WriteTimeout: a call may legitimately wait in the queue for long,
// and a client that gives up leaves the queue on its own.
func newHTTPServer(s *Server) *http.Server {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	hs.SetKeepAlivesEnabled(true)
	return hs
}

// Serve serves s on ln until ctx is done, then shuts down gracefully,
// waiting at most ShutdownTimeout for in-flight calls. It returns nil after
// a shutdown caused by ctx, or the error that stopped serving otherwise.
// Serve closes ln.
func Serve(ctx context.Context, ln net.Listener, s *Server) error {
	hs := newHTTPServer(s)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		_ = hs.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return nil // in-flight calls were cut off; not an error of Serve
	}
	return err
}
