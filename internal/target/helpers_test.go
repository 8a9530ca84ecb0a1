package target

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// testServer is a Server running on a loopback socket.
type testServer struct {
	*Server
	base   string
	client *http.Client
}

// start serves s on 127.0.0.1 until the test ends.
func start(t *testing.T, s *Server) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, s) }()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
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

// waitFor polls cond until it holds, failing the test after 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
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
