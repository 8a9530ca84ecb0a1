//go:build linux

package client

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// loopCall is one call Loop recorded.
type loopCall struct {
	client     uint32
	start, end int64
	r          Reply
}

// runLoop runs an HTTPLoop of d's request for dur and returns its calls.
func runLoop(t *testing.T, ctx context.Context, d protocol.HTTPDesc, clients int, interval, dur, timeout time.Duration) ([]loopCall, string) {
	t.Helper()
	lp, now := loopClient(t, d, timeout)
	var calls []loopCall
	end := lp.Loop(ctx, clients, interval, int64(dur), now, func(id uint32, s, e int64, r *Reply) {
		calls = append(calls, loopCall{id, s, e, *r})
	})
	return calls, end
}

// loopClient builds the event-loop client of d and a clock for it (ns
// since now).
func loopClient(t *testing.T, d protocol.HTTPDesc, timeout time.Duration) (*HTTPLoop, func() int64) {
	t.Helper()
	c, err := NewHTTPClient(d, timeout)
	if err != nil {
		t.Fatal(err)
	}
	lp, ok := c.(*HTTPLoop)
	if !ok {
		t.Fatalf("%+v: not served by the event loop", d)
	}
	base := time.Now()
	return lp, func() int64 { return int64(time.Since(base)) }
}

func get(url string) protocol.HTTPDesc { return protocol.HTTPDesc{Method: "GET", URL: url} }

// TestLoopClosedLoop runs 20 clients against a real server: every call
// OK with its body counted, every client served, connections reused.
func TestLoopClosedLoop(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("chunked") {
			w.(http.Flusher).Flush() // forces chunked encoding
		}
		_, _ = w.Write([]byte("hello"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	for _, q := range []string{"", "?chunked"} {
		conns.Store(0)
		calls, end := runLoop(t, context.Background(), get(srv.URL+"/"+q), 20, 0, 300*time.Millisecond, 5*time.Second)
		per := map[uint32]int{}
		for _, c := range calls {
			per[c.client]++
			if c.r.Status != sample.OK || c.r.Bytes != 5 || c.end < c.start {
				t.Fatalf("%s: call %+v, want OK with 5 bytes", q, c)
			}
		}
		if end != "completed" || len(per) != 20 || len(calls) < 200 {
			t.Errorf("%s: %s with %d calls over %d clients, want completed, 20 clients, hundreds of calls", q, end, len(calls), len(per))
		}
		if n := conns.Load(); n != 20 {
			t.Errorf("%s: %d connections for 20 keep-alive clients", q, n)
		}
		if calls[0].r.Phases.Connect <= 0 || calls[len(calls)-1].r.Phases.Connect != 0 || calls[len(calls)-1].r.Phases.FirstByte <= 0 {
			t.Errorf("%s: phases first %+v last %+v; want connect on the first call only", q, calls[0].r.Phases, calls[len(calls)-1].r.Phases)
		}
	}
}

// TestLoopIntervalStatusAndClose checks the client interval, a failing
// status, and servers that close the connection after each response.
func TestLoopIntervalStatusAndClose(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	calls, _ := runLoop(t, context.Background(), get(srv.URL+"/close"), 2, 50*time.Millisecond, 500*time.Millisecond, 5*time.Second)
	if len(calls) < 16 || len(calls) > 22 {
		t.Errorf("%d calls by 2 clients every 50 ms for 500 ms, want about 20", len(calls))
	}
	for _, c := range calls {
		if c.r.Status != sample.Failed || c.r.Err != "HTTP 503" || c.r.Phases.Connect <= 0 {
			t.Fatalf("call %+v: want Failed HTTP 503 on a new connection", c)
		}
	}
}

// rawServer serves each request head of each connection with serve, on
// loopback.
func rawServer(t *testing.T, serve func(c net.Conn)) string {
	return rawServerN(t, func(c net.Conn, _ int) bool { serve(c); return true })
}

// rawServerN serves request head n (from 1) of each connection with
// serve, which returns false to close the connection instead.
func rawServerN(t *testing.T, serve func(c net.Conn, n int) bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for n := 1; ; { // answer each request's head
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if line != "\r\n" {
						continue
					}
					if !serve(c, n) {
						return
					}
					n++
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

// TestLoopMalformed attacks the parser through a real socket: each bad
// response must be a Failed call, never a panic or a hang.
func TestLoopMalformed(t *testing.T) {
	t.Parallel()
	write := func(s string) func(net.Conn) { return func(c net.Conn) { _, _ = c.Write([]byte(s)) } }
	closeAfter := func(s string) func(net.Conn) { return func(c net.Conn) { _, _ = c.Write([]byte(s)); c.Close() } }
	tests := []struct {
		name   string
		serve  func(net.Conn)
		errHas string
	}{
		{"huge headers", write("HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 100<<10) + "\r\n\r\n"), "headers over"},
		{"bad chunked", write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nnope\r\n"), "chunk size"},
		{"bogus content-length", write("HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n"), "Content-Length"},
		{"closed mid-body", closeAfter("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"), "mid-response"},
		{"closed before answering", func(c net.Conn) { c.Close() }, "before answering"},
		{"garbage", write("SSH-2.0-OpenSSH\r\n\r\n"), "malformed status line"},
	}
	for _, tt := range tests {
		url := rawServer(t, tt.serve)
		calls, _ := runLoop(t, context.Background(), get(url), 3, 20*time.Millisecond, 100*time.Millisecond, 5*time.Second)
		if len(calls) == 0 {
			t.Errorf("%s: no calls", tt.name)
		}
		for _, c := range calls {
			if c.r.Status != sample.Failed || !strings.Contains(c.r.Err, tt.errHas) {
				t.Errorf("%s: %+v, want Failed with %q", tt.name, c.r, tt.errHas)
				break
			}
		}
		h, _ := NewHTTPDesc(get(url), 5*time.Second)
		if r := h.Call(context.Background()); r.Status != sample.Failed {
			t.Errorf("%s by net/http: %+v, want Failed", tt.name, r)
		}
		hl, _ := NewHTTPClient(get(url), 5*time.Second)
		if r := hl.Call(context.Background()); r.Status != sample.Failed || !strings.Contains(r.Err, tt.errHas) {
			t.Errorf("%s by the pooled Call: %+v, want Failed with %q", tt.name, r, tt.errHas)
		}
	}
}

// TestLoopTimeoutCancelRefused checks a hung server (Timeout), a
// cancelled context (Cancelled, "stopped") and a refused connection.
func TestLoopTimeoutCancelRefused(t *testing.T) {
	t.Parallel()
	hung := rawServer(t, func(net.Conn) {})
	calls, end := runLoop(t, context.Background(), get(hung), 2, 0, 50*time.Millisecond, 100*time.Millisecond)
	if end != "completed" || len(calls) != 2 || calls[0].r.Status != sample.Timeout {
		t.Errorf("hung server: %s %+v, want 2 Timeout calls", end, calls)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	calls, end = runLoop(t, ctx, get(hung), 2, 0, time.Minute, time.Minute)
	if end != "stopped" || len(calls) != 2 || calls[0].r.Status != sample.Cancelled {
		t.Errorf("cancelled: %s %+v, want 2 Cancelled calls", end, calls)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	calls, _ = runLoop(t, context.Background(), get("http://"+addr+"/"), 1, 10*time.Millisecond, 50*time.Millisecond, time.Second)
	if len(calls) == 0 || calls[0].r.Status != sample.Failed || !strings.Contains(calls[0].r.Err, "refused") {
		t.Errorf("refused: %+v", calls)
	}
}

// TestBuildRequest checks the request bytes the loop sends.
func TestBuildRequest(t *testing.T) {
	t.Parallel()
	c, err := NewHTTPClient(protocol.HTTPDesc{Method: "POST", URL: "http://h:81/a?b=1", Body: []byte("xy"),
		Headers: [][2]string{{"X-A", "1"}}}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := "POST /a?b=1 HTTP/1.1\r\nHost: h:81\r\nX-A: 1\r\nContent-Length: 2\r\n\r\nxy"
	if got := string(c.(*HTTPLoop).request); got != want {
		t.Errorf("request %q, want %q", got, want)
	}
}

// TestPooledCall checks HTTPLoop's Call: reuse, a server that closes an
// idle connection (re-sent once), timeout, cancel and refused.
func TestPooledCall(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			<-r.Context().Done()
			return
		}
		_, _ = w.Write([]byte("pooled"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, _ := NewHTTPClient(get(srv.URL+"/"), 5*time.Second)
	r1, r2 := c.Call(context.Background()), c.Call(context.Background())
	if r1.Status != sample.OK || r1.Bytes != 6 || r1.Phases.Connect <= 0 || r2.Status != sample.OK || r2.Phases.Connect != 0 || r2.Phases.FirstByte <= 0 {
		t.Errorf("calls %+v then %+v: want OK, a new connection then a reused one", r1, r2)
	}
	srv.CloseClientConnections() // the pooled connection is now closed by the server
	if r := c.Call(context.Background()); r.Status != sample.OK || r.Phases.Connect <= 0 || conns.Load() != 2 {
		t.Errorf("after the server closed the idle connection: %+v on %d connections", r, conns.Load())
	}
	hang, _ := NewHTTPClient(get(srv.URL+"/hang"), 100*time.Millisecond)
	if r := hang.Call(context.Background()); r.Status != sample.Timeout {
		t.Errorf("hung: %+v, want Timeout", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	slow, _ := NewHTTPClient(get(srv.URL+"/hang"), time.Minute)
	if r := slow.Call(ctx); r.Status != sample.Cancelled {
		t.Errorf("cancelled: %+v, want Cancelled", r)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	ref, _ := NewHTTPClient(get("http://"+addr+"/"), time.Second)
	if r := ref.Call(context.Background()); r.Status != sample.Failed || !strings.Contains(r.Err, "refused") {
		t.Errorf("refused: %+v", r)
	}
}

// TestResendOnlyWhatMayRepeat: a server answers the first request of each
// connection and closes the connection on the second without answering.
// A GET on the closed connection is sent again on a new one and succeeds;
// a POST is not (the server may have acted on it): it fails, and the
// server sees one request per call. Both the pooled Call and the event
// loop.
func TestResendOnlyWhatMayRepeat(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	url := rawServerN(t, func(c net.Conn, n int) bool {
		requests.Add(1)
		if n == 2 {
			return false // the second request: closed unanswered
		}
		_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		return true
	})
	for _, method := range []string{"GET", "POST"} {
		requests.Store(0)
		c, err := NewHTTPClient(protocol.HTTPDesc{Method: method, URL: url}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		r1, r2 := c.Call(context.Background()), c.Call(context.Background())
		switch {
		case r1.Status != sample.OK:
			t.Errorf("%s: first call %+v, want OK", method, r1)
		case method == "GET" && (r2.Status != sample.OK || requests.Load() != 3):
			t.Errorf("GET: second call %+v after %d requests, want OK after 3 (sent again)", r2, requests.Load())
		case method == "POST" && (r2.Status != sample.Failed || requests.Load() != 2):
			t.Errorf("POST: second call %+v after %d requests, want Failed after 2 (not sent again)", r2, requests.Load())
		}
		requests.Store(0)
		calls, _ := runLoop(t, context.Background(), protocol.HTTPDesc{Method: method, URL: url}, 1, 20*time.Millisecond, 150*time.Millisecond, 5*time.Second)
		failed := 0
		for _, c := range calls {
			if c.r.Status != sample.OK {
				failed++
			}
		}
		// Calls alternate between a fresh connection and its second
		// request, whatever the machine's speed lets the loop make: a GET
		// after the first costs two requests and succeeds; a POST on the
		// second request fails, one request each.
		k, n := len(calls), int(requests.Load())
		if k < 2 {
			t.Fatalf("%s loop: %d calls in 150 ms, want at least 2", method, k)
		}
		if method == "GET" && (failed != 0 || n != 2*k-1) {
			t.Errorf("GET loop: %d of %d calls failed on %d requests, want none failed on %d (each second request sent again)", failed, k, n, 2*k-1)
		}
		if method == "POST" && (failed != k/2 || n != k) {
			t.Errorf("POST loop: %d of %d calls failed on %d requests, want every second (%d) failed, one request each", failed, k, n, k/2)
		}
	}
}
