package directory

import (
	"context"
	"net"
	"net/http"
)

// shutdownKey is the context key of the channel closed when the server
// shuts down: a sensor's long poll then answers at once, rather than
// holding the shutdown for its wait (the server gives requests 5 s).
type shutdownKey struct{}

// endPollsOnShutdown makes srv's requests carry a channel that its
// shutdown closes.
func endPollsOnShutdown(srv *http.Server) {
	shutting := make(chan struct{})
	srv.BaseContext = func(net.Listener) context.Context {
		return context.WithValue(context.Background(), shutdownKey{}, (<-chan struct{})(shutting))
	}
	srv.RegisterOnShutdown(func() { close(shutting) })
}

// shuttingDown is the channel r's server closes at its shutdown (nil,
// never closed, for a server that does not: httptest's).
func shuttingDown(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(shutdownKey{}).(<-chan struct{})
	return ch
}
