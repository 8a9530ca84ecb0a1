package target

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
)

// bubble runs f in parallel with the other tests, in a synctest bubble:
// on fake time, which moves only when every goroutine of the test waits,
// so that a service time of 50 ms takes exactly 50 ms however busy the
// machine is.
func bubble(t *testing.T, f func(t *testing.T)) {
	t.Parallel()
	synctest.Test(t, f)
}

// memListener is an in-memory net.Listener: dial hands one end of a
// net.Pipe to Accept. A goroutine blocked on it is durably blocked (a
// loopback socket is not), so servers on it run in a synctest bubble.
type memListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newMemListener() *memListener {
	return &memListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept implements net.Listener.
func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr implements net.Listener.
func (l *memListener) Addr() net.Addr { return memAddr{} }

// dial connects to the listener; it is an http.Transport's DialContext.
func (l *memListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	srv, cli := net.Pipe()
	select {
	case l.conns <- srv:
		return cli, nil
	case <-l.done:
		err := net.ErrClosed
		return nil, errors.Join(err, srv.Close(), cli.Close())
	case <-ctx.Done():
		return nil, errors.Join(ctx.Err(), srv.Close(), cli.Close())
	}
}

// memAddr is the address of a memListener.
type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "target.test:80" }

// testServer is a Server running on an in-memory listener.
type testServer struct {
	*Server
	base   string
	client *http.Client
}

// start serves s on a memListener until the test ends. It must run in a
// synctest bubble.
func start(t *testing.T, s *Server) *testServer {
	t.Helper()
	ln := newMemListener()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, s) }()
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DialContext: ln.dial}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		tr.CloseIdleConnections()
	})
	return &testServer{Server: s, base: "http://" + ln.Addr().String(), client: &http.Client{Transport: tr}}
}

// newStarted builds a Server for cfg, lets setup adjust it, and starts it.
func newStarted(t *testing.T, cfg Config, setup func(*Server)) *testServer {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(s)
	}
	return start(t, s)
}

// get fetches path and returns the status code and body; it returns an
// error only for transport failures.
func (ts *testServer) get(ctx context.Context, path string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.base+path, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// mustGet fetches path and fails the test on a transport error.
func (ts *testServer) mustGet(t *testing.T, path string) (int, string) {
	t.Helper()
	code, body, err := ts.get(context.Background(), path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return code, body
}

// asyncGet fetches path in the background; the result arrives on the
// returned channel.
func (ts *testServer) asyncGet(ctx context.Context, path string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		code, _, err := ts.get(ctx, path)
		ch <- result{code: code, err: err}
	}()
	return ch
}

// result is the outcome of an asyncGet.
type result struct {
	code int
	err  error
}

// isCanceled reports whether err comes from a cancelled context.
func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }
