package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// TestRunHTTPRate runs the open model at 200 calls/s for 1 s against a
// loopback server with each engine and reads its JSON line.
func TestRunHTTPRate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	for _, engine := range []string{"loop", "call"} {
		rate := &protocol.RateDesc{Arrivals: protocol.ArrivalsUniform, MaxLatenessNs: int64(30 * time.Second), Seed: 1,
			Stages: []protocol.StageDesc{{DurationNs: int64(time.Second), From: 200, To: 200}}}
		o := HTTPOptions{Desc: protocol.HTTPDesc{URL: srv.URL, Method: "GET"}, Timeout: 30 * time.Second,
			Connections: 8, Duration: time.Second, Rate: rate, Engine: engine}
		rep, err := RunHTTP(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		checkRateLine(t, b, engine)
		if s := rep.Summary(); !strings.Contains(s, "200 calls/s asked") {
			t.Errorf("summary %q", s)
		}
	}
}

// checkRateLine checks the JSON line of a 1 s run at 200 calls/s.
func checkRateLine(t *testing.T, line []byte, engine string) {
	t.Helper()
	var fields map[string]any
	if err := json.Unmarshal(line, &fields); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	for _, k := range []string{"target_rate", "achieved_rate", "late", "dropped", "lag_p50_ms", "lag_p99_ms", "p50_ms", "p99_ms", "cpu_s", "cpu_core", "requests_per_s"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("the JSON line lacks %s: %s", k, line)
		}
	}
	var r HTTPRateResult
	if err := json.Unmarshal(line, &r); err != nil {
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
