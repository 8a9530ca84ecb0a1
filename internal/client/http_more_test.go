package client

import (
	"context"
	"encoding/pem"
	"io"
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

// call builds the client d describes with New and makes one call.
func call(t *testing.T, d protocol.HTTPDesc) Reply {
	t.Helper()
	c, err := New(Spec{Desc: protocol.ClientDesc{Kind: protocol.ClientHTTP, HTTP: &d}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.(io.Closer).Close()
	return c.Call(context.Background())
}

// TestHTTPRequestAndSuccess checks the method, headers and body sent, and
// the success ranges.
func TestHTTPRequestAndSuccess(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Method != "POST" || r.Header.Get("X-Test") != "yes" || string(b) != "payload" || r.Host != "example.test" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("busy"))
	}))
	defer srv.Close()
	d := protocol.HTTPDesc{Method: "POST", URL: srv.URL + "/p", Body: []byte("payload"),
		Headers: [][2]string{{"X-Test", "yes"}, {"Host", "example.test"}}}
	if r := call(t, d); r.Status != sample.Failed || r.Err != "HTTP 503" || r.Bytes != 4 {
		t.Errorf("503 by default: %+v, want Failed with HTTP 503 and 4 bytes", r)
	}
	d.Success = [][2]int{{200, 299}, {503, 503}}
	if r := call(t, d); r.Status != sample.OK {
		t.Errorf("503 declared success: %+v", r)
	}
}

// TestHTTPTLSAndHTTP2 checks TLS with a trusted test CA, ServerName,
// Insecure, HTTP/2 by ALPN, and the phases of a new connection.
func TestHTTPTLSAndHTTP2(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 && r.URL.Path == "/h2" {
			w.WriteHeader(http.StatusHTTPVersionNotSupported)
			return
		}
		_, _ = w.Write([]byte("secure"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if r := call(t, protocol.HTTPDesc{Method: "GET", URL: srv.URL}); r.Status != sample.Failed || !strings.Contains(r.Err, "certificate") {
		t.Errorf("an untrusted certificate: %+v, want a certificate failure", r)
	}
	r := call(t, protocol.HTTPDesc{Method: "GET", URL: srv.URL + "/h2", CA: ca, Version: "2"})
	if r.Status != sample.OK || r.Bytes != 6 || r.Phases.Connect <= 0 || r.Phases.TLS <= 0 || r.Phases.FirstByte <= 0 {
		t.Errorf("h2 with the test CA: %+v, want OK with 6 bytes and connect, TLS and first-byte phases", r)
	}
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	// httptest's certificate names example.com and 127.0.0.1.
	r = call(t, protocol.HTTPDesc{Method: "GET", URL: "https://localhost" + port, CA: ca, ServerName: "example.com"})
	if r.Status != sample.OK || r.Phases.DNS <= 0 {
		t.Errorf("ServerName example.com by localhost: %+v, want OK with a DNS phase", r)
	}
	if r := call(t, protocol.HTTPDesc{Method: "GET", URL: srv.URL, Insecure: true}); r.Status != sample.OK {
		t.Errorf("Insecure: %+v", r)
	}
	if r := call(t, protocol.HTTPDesc{Method: "GET", URL: srv.URL + "/h2", CA: ca}); r.Status != sample.Failed || r.Err != "HTTP 505" {
		t.Errorf("version 1.1 must not speak h2: %+v", r)
	}
}

// TestHTTPh2cAndKeepAlive checks h2c with prior knowledge, connection
// reuse (no connect phase on the second call) and NoKeepAlive.
func TestHTTPh2cAndKeepAlive(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.Proto))
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := NewHTTPClient(protocol.HTTPDesc{Method: "GET", URL: srv.URL, Version: "2"}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.(io.Closer).Close()
	if _, loop := c.(Looper); loop {
		t.Error("an h2c client must not be the HTTP/1.1 event loop")
	}
	r1, r2 := c.Call(context.Background()), c.Call(context.Background())
	if r1.Status != sample.OK || r1.Bytes != int64(len("HTTP/2.0")) || r1.Phases.Connect <= 0 {
		t.Errorf("h2c first call: %+v", r1)
	}
	if r2.Status != sample.OK || r2.Phases.Connect != 0 || conns.Load() != 1 {
		t.Errorf("h2c second call: %+v on %d connections; want a reused connection", r2, conns.Load())
	}
	nk, err := NewHTTPClient(protocol.HTTPDesc{Method: "GET", URL: srv.URL, NoKeepAlive: true}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if r := nk.Call(context.Background()); r.Status != sample.OK || r.Phases.Connect <= 0 {
			t.Errorf("no keep-alive: %+v, want OK on a new connection", r)
		}
	}
	if n := conns.Load(); n != 4 {
		t.Errorf("%d connections after 3 calls without keep-alive, want 1+3", n)
	}
}
