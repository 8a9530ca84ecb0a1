// Package dashboard serves a run's live web view while it goes: a page
// that draws the run's timeline (offered load, throughput, response-time
// percentiles, errors, live testers) and its testers and errors, updated
// every second over server-sent events from the controller's per-second
// aggregates (package live, never raw samples); the controller's
// Prometheus metrics at /metrics; and the run's report once it is written.
// Everything it serves is embedded: no network is needed. Every request
// must carry the run's token: in the URL the controller prints (the page
// puts it in the URLs of its own requests), or as a bearer token. It is
// never put in a cookie: browsers send a host's cookies to every port of
// it, so another server on the host would be sent it.
package dashboard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/preauth"
)

// Options configure a dashboard.
type Options struct {
	Addr   string // where to listen, HOST:PORT
	Token  string // the token every request must carry ("": a random one)
	Report string // the run's report.html path, served at /report once it exists
	// Period is how often the page is updated (0: every second).
	Period time.Duration
}

// Server is a running dashboard.
type Server struct {
	run   *live.Run
	o     Options
	ln    net.Listener
	srv   *http.Server
	hub   *hub
	quit  chan struct{}
	wg    sync.WaitGroup
	token string
	page  []byte // the page, its URLs carrying the token
}

// Start listens on o.Addr and serves run's dashboard until Close.
func Start(run *live.Run, o Options) (*Server, error) {
	if o.Period <= 0 {
		o.Period = time.Second
	}
	if o.Token == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("dashboard: making its token: %w", err)
		}
		o.Token = hex.EncodeToString(b)
	}
	page, err := renderPage(o.Token)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("dashboard: listen on %s: %w", o.Addr, err)
	}
	s := &Server{run: run, o: o, ln: ln, hub: newHub(), quit: make(chan struct{}), token: o.Token, page: page}
	s.srv = newHTTPServer(s.routes())
	pool := preauth.NewPool(preauth.Limits{Conns: MaxUnproved, PerSource: maxUnprovedPerSource})
	s.wg.Go(func() { _ = s.srv.Serve(preauth.HTTPListener(ln, pool)) })
	s.wg.Go(s.broadcast)
	return s, nil
}

// URL is the address to open, token included.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/?token=" + s.token }

// Addr is the address the dashboard listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Token is the token requests must carry.
func (s *Server) Token() string { return s.token }

// Close sends the browsers a last update, then stops serving.
func (s *Server) Close() error {
	close(s.quit)
	s.hub.closeAll()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	s.wg.Wait()
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	return err
}
