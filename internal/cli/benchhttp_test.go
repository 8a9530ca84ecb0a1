package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBenchHTTPFlags: the flags reach bench.RunHTTP (internal/bench tests
// what it measures): --engine names the engine of the JSON line, --rate
// runs the open model at that rate, and the line for people goes to
// stderr.
func TestBenchHTTPFlags(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	for _, extra := range [][]string{{"--engine", "call"}, {"--engine", "loop", "--rate", "100"}} {
		var out, errb bytes.Buffer
		args := append([]string{"bench", "http", "--url", srv.URL, "--connections", "2", "--duration", "300ms"}, extra...)
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var r struct {
			Engine      string   `json:"engine"`
			Connections int      `json:"connections"`
			TargetRate  *float64 `json:"target_rate"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%v: %q: %v", args, out.String(), err)
		}
		rate := len(extra) > 2
		if r.Engine != extra[1] || r.Connections != 2 || (r.TargetRate != nil) != rate || (rate && *r.TargetRate != 100) {
			t.Errorf("%v: %s", args, out.String())
		}
		if !strings.HasPrefix(errb.String(), srv.URL+": ") {
			t.Errorf("%v: stderr %q", args, errb.String())
		}
	}
}

// TestBenchHTTPRateRefused: a rate that is not a positive number of
// calls/s, an unknown arrival process or a negative lateness are usage
// errors.
func TestBenchHTTPRateRefused(t *testing.T) {
	t.Parallel()
	for _, extra := range [][]string{
		{"--rate", "-5"}, {"--rate", "NaN"}, {"--rate", "0"}, {"--rate", "+Inf"}, {"--rate", "1e12"},
		{"--rate", "100", "--arrivals", "bursty"}, {"--rate", "100", "--max-lateness", "-1s"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"bench", "http", "--url", "http://127.0.0.1:1/", "--duration", "1s"}, extra...)
		if code := Main(args, &out, &errb); code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), strings.TrimPrefix(extra[len(extra)-2], "--")) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a usage error naming the flag", extra, code, out.String(), errb.String())
		}
	}
}
