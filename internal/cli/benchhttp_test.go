package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestBenchHTTP runs `diperf bench http` against a loopback server with
// each engine and reads its JSON line.
func TestBenchHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	for _, tc := range []struct{ path, engine string }{{"/", "loop"}, {"/", "call"}, {"/fail", "auto"}} {
		var out, errb bytes.Buffer
		args := []string{"bench", "http", "--url", srv.URL + tc.path, "--connections", "4", "--duration", "300ms", "--engine", tc.engine}
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var r benchHTTPResult
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%v: %q: %v", args, out.String(), err)
		}
		wantErrs := int64(0)
		if tc.path == "/fail" {
			wantErrs = r.Requests
		}
		if r.Requests < 50 || r.Errors != wantErrs || r.RequestsPerS <= 0 || r.P50Ms <= 0 || r.P99Ms < r.P50Ms || r.CPUS <= 0 ||
			(tc.engine != "auto" && r.Engine != tc.engine) {
			t.Errorf("%v: %+v", args, r)
		}
		if tc.path == "/fail" && r.FirstError != "HTTP 500" {
			t.Errorf("first error %q, want HTTP 500", r.FirstError)
		}
	}
}
