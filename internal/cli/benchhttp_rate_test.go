package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBenchHTTPRate runs `diperf bench http --rate` (the open model)
// against a loopback server and reads its JSON line.
func TestBenchHTTPRate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	var out, errb bytes.Buffer
	for _, engine := range []string{"loop", "call"} {
		out.Reset()
		args := []string{"bench", "http", "--url", srv.URL, "--connections", "8", "--duration", "1s", "--rate", "200", "--engine", engine}
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		checkRateLine(t, out.Bytes(), engine)
	}
}

// checkRateLine checks the JSON line of a 1 s run at 200 calls/s.
func checkRateLine(t *testing.T, line []byte, engine string) {
	t.Helper()
	out := bytes.NewBuffer(line)
	var fields map[string]any
	if err := json.Unmarshal(out.Bytes(), &fields); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	for _, k := range []string{"target_rate", "achieved_rate", "late", "dropped", "lag_p50_ms", "lag_p99_ms", "p50_ms", "p99_ms", "cpu_s", "cpu_core", "requests_per_s"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("the JSON line lacks %s: %s", k, out.String())
		}
	}
	var r benchRateResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	// Uniform arrivals at 200/s for 1 s are exactly 200 intended starts;
	// the bounds on what ran are loose, for a busy machine.
	if r.Intended != 200 || r.Started+r.Dropped != r.Intended || r.Started < 150 || r.Errors != 0 ||
		r.TargetRate != 200 || r.AchievedRate < 100 || r.AchievedRate > 201 || r.Arrivals != "uniform" ||
		r.P50Ms <= 0 || r.P99Ms < r.P50Ms || r.LagP99Ms < r.LagP50Ms || r.CPUS <= 0 || r.CPUCore <= 0 || r.Engine != engine {
		t.Errorf("%+v", r)
	}
	if r.P50Ms < r.LagP50Ms {
		t.Errorf("latency from intended start p50 %.3f ms below the lag's %.3f ms", r.P50Ms, r.LagP50Ms)
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
