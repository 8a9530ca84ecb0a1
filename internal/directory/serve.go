package directory

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// Serve answers h on ln until ctx is done (then shuts down, giving
// requests in flight 5 s), over TLS when certFile and keyFile are given
// (both are read, and refused, before anything is served), with
// ServeConfig's defaults otherwise.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, certFile, keyFile string) error {
	var cfg ServeConfig
	if certFile != "" {
		var err error
		if cfg.TLS, err = LoadTLS(certFile, keyFile); err != nil {
			return err
		}
	}
	return ServeWith(ctx, ln, h, cfg)
}

// ServeWith answers h on ln as cfg says until ctx is done (then shuts
// down, giving requests in flight 5 s). Headers are capped at 16 KB and
// slow peers time out (a request's header within preauth.FirstByteTimeout
// of the connection); connections that have not proved themselves (no
// request with the token yet) are held in a preauth pool.
func ServeWith(ctx context.Context, ln net.Listener, h http.Handler, cfg ServeConfig) error {
	if cfg.Unproved == (preauth.Limits{}) {
		cfg.Unproved = DefaultUnproved()
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: preauth.FirstByteTimeout, // a member sends its request at once
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		TLSConfig:         cfg.TLS,
		ConnContext:       preauth.ConnContext,
		ConnState:         preauth.ConnState,
	}
	endPollsOnShutdown(srv)
	ln = preauth.HTTPListener(ln, preauth.NewPool(cfg.Unproved))
	done := make(chan error, 1)
	go func() {
		if cfg.TLS != nil {
			done <- srv.ServeTLS(ln, "", "") // the certificate is in cfg.TLS
		} else {
			done <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		return fmt.Errorf("serving the directory: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("stopping the directory: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving the directory: %w", err)
	}
	return nil
}
