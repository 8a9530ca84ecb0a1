package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/protocol"
)

// TestRunHTTP runs the closed loop against a loopback server with each
// engine and reads its JSON line.
func TestRunHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	for _, tc := range []struct{ path, engine string }{{"/", "loop"}, {"/", "call"}, {"/fail", "auto"}} {
		o := HTTPOptions{Desc: protocol.HTTPDesc{URL: srv.URL + tc.path, Method: "GET"}, Timeout: 30 * time.Second,
			Connections: 4, Duration: 300 * time.Millisecond, Engine: tc.engine}
		rep, err := RunHTTP(context.Background(), o)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		var r HTTPResult
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%+v: %s: %v", tc, b, err)
		}
		wantErrs := int64(0)
		if tc.path == "/fail" {
			wantErrs = r.Requests
		}
		if r.Requests < 50 || r.Errors != wantErrs || r.RequestsPerS <= 0 || r.P50Ms <= 0 || r.P99Ms < r.P50Ms || r.CPUS <= 0 ||
			(tc.engine != "auto" && r.Engine != tc.engine) {
			t.Errorf("%+v: %+v", tc, r)
		}
		if tc.path == "/fail" && r.FirstError != "HTTP 500" {
			t.Errorf("first error %q, want HTTP 500", r.FirstError)
		}
		if s := rep.Summary(); !strings.HasPrefix(s, srv.URL+tc.path+": ") || !strings.Contains(s, "req/s, p50 ") {
			t.Errorf("summary %q", s)
		}
	}
}

// TestRunHTTPRefused: an engine that does not exist, or the event loop
// for a request it does not serve, is a usage error.
func TestRunHTTPRefused(t *testing.T) {
	t.Parallel()
	for _, o := range []HTTPOptions{
		{Desc: protocol.HTTPDesc{URL: "http://127.0.0.1:1/", Method: "GET"}, Engine: "fast"},
		{Desc: protocol.HTTPDesc{URL: "http://127.0.0.1:1/", Method: "GET", Version: "2"}, Engine: "loop"},
		{Desc: protocol.HTTPDesc{URL: "ftp://127.0.0.1:1/", Method: "GET"}, Engine: "auto"},
	} {
		o.Timeout, o.Connections, o.Duration = time.Second, 1, time.Second
		if _, err := RunHTTP(context.Background(), o); errs.Code(err) != errs.CodeUsage {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}
