package directory

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "test-token-0123456789abcdef0123456789"

// fakeClock is an injected clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testServer starts a directory on a real loopback socket over a database
// in a temporary directory.
func testServer(t testing.TB) (*Client, *fakeClock, string) {
	t.Helper()
	store, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clk := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	srv := NewServer(store, Options{Token: []byte(testToken), TTL: 30 * time.Second, Now: clk.Now})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	c, err := NewClient(hs.URL, []byte(testToken), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, clk, hs.URL
}

func reg(name string, groups ...string) Registration {
	return Registration{Name: name, Address: name + ":7400", Groups: groups, Version: "1",
		Capabilities: []string{"bandwidth", "latency"}}
}

func TestStaleAfterTTLNotDeleted(t *testing.T) {
	c, clk, _ := testServer(t)
	ctx := context.Background()
	for _, r := range []Registration{reg("a", "local"), reg("b", "local", "global")} {
		l, err := c.Register(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if l.TTLSeconds != 30 || l.RenewAfterS != 10 {
			t.Fatalf("lease %+v: want ttl 30 s, renew after 10 s", l)
		}
	}
	clk.Add(20 * time.Second)
	if _, err := c.Renew(ctx, "a"); err != nil { // a renews, b does not
		t.Fatal(err)
	}
	clk.Add(15 * time.Second) // b's lease ran out 5 s ago; a's has 15 s left
	got := states(t, c, "")
	if got["a"] != StateLive || got["b"] != StateStale {
		t.Fatalf("states %v: want a live, b stale", got)
	}
	if g := states(t, c, "global"); len(g) != 1 || g["b"] != StateStale {
		t.Fatalf("group global: %v; want only b (stale, still listed)", g)
	}
	if _, err := c.Register(ctx, reg("b", "local")); err != nil {
		t.Fatal(err)
	}
	if got := states(t, c, ""); got["b"] != StateLive {
		t.Fatalf("after re-registration: %v; want b live", got)
	}
	if _, err := c.Renew(ctx, "nobody"); !errors.Is(err, ErrNotRegistered) {
		t.Fatalf("renewing an unknown sensor: %v; want ErrNotRegistered", err)
	}
}

func states(t *testing.T, c *Client, group string) map[string]string {
	t.Helper()
	list, err := c.Sensors(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, s := range list {
		m[s.Name] = s.State
	}
	return m
}

func bwResult(src, dst string, at time.Time, bps float64) Result {
	return Result{Src: src, Dst: dst, Kind: KindBandwidth, BandwidthBps: bps, BandwidthAfterSlowStartBps: bps * 1.02,
		TestTimeS: 5, MeasuredAt: at}
}

func TestResultsQueries(t *testing.T) {
	c, _, _ := testServer(t)
	ctx := context.Background()
	registerAll(t, c, "a", "b")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		if _, err := c.AddResult(ctx, bwResult("a", "b", t0.Add(time.Duration(i)*time.Minute), float64(1e6*(i+1)))); err != nil {
			t.Fatal(err)
		}
	}
	lat := Result{Src: "a", Dst: "b", Kind: KindLatency, LatencyP50Ms: 1, LatencyP90Ms: 2, LatencyP99Ms: 3,
		TestTimeS: 5, MeasuredAt: t0, Busy: 2, Missed: 1}
	if _, err := c.AddResult(ctx, lat); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddResult(ctx, bwResult("b", "a", t0, 7e6)); err != nil {
		t.Fatal(err)
	}
	check := func(q Query, want int, first float64) {
		t.Helper()
		got, err := c.Results(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want || want > 0 && got[0].BandwidthBps != first {
			t.Fatalf("query %+v: %d results %+v; want %d, first %g bps", q, len(got), got, want, first)
		}
	}
	check(Query{Src: "a", Dst: "b", Kind: KindBandwidth}, 5, 5e6)
	check(Query{Src: "a", Dst: "b", Kind: KindBandwidth, Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute)}, 3, 4e6)
	check(Query{Src: "a", Kind: KindBandwidth, Latest: true}, 1, 5e6)
	check(Query{Kind: KindBandwidth, Latest: true}, 2, 5e6)
	check(Query{Latest: true}, 3, 5e6)
	check(Query{Src: "a", Dst: "b", Limit: 2}, 2, 5e6)
	got, err := c.Results(ctx, Query{Kind: KindLatency})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].LatencyP99Ms != 3 || got[0].Busy != 2 || got[0].Missed != 1 || !got[0].MeasuredAt.Equal(t0) {
		t.Fatalf("latency result back: %+v", got)
	}
}

func TestForecasts(t *testing.T) {
	c, _, _ := testServer(t)
	ctx := context.Background()
	registerAll(t, c, "a", "b")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, m := range []string{"last", "exp_avg"} {
		f := Forecast{Src: "a", Dst: "b", Kind: KindBandwidth, Value: 9e6 + float64(i), Error: 1e5, Method: m,
			MadeAt: t0.Add(time.Duration(i) * time.Second)}
		if _, err := c.AddForecast(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Forecasts(ctx, Query{Src: "a", Dst: "b", Kind: KindBandwidth, Latest: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Method != "exp_avg" || got[0].Value != 9e6+1 || got[0].Error != 1e5 {
		t.Fatalf("latest forecast: %+v; want exp_avg 9000001 ± 1e5", got)
	}
}

// TestNoTokenNothingElse: every path, known or not, answers 401 with an
// empty body to a peer without the right token.
func TestNoTokenNothingElse(t *testing.T) {
	_, _, base := testServer(t)
	paths := []struct{ method, path string }{{"POST", "/v1/sensors"}, {"GET", "/v1/sensors"},
		{"POST", "/v1/sensors/a/renew"}, {"POST", "/v1/results"}, {"GET", "/v1/results"},
		{"POST", "/v1/forecasts"}, {"GET", "/v1/forecasts"}, {"GET", "/metrics"}, {"GET", "/nope"}}
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + testToken + "x", testToken, "Basic " + testToken} {
		for _, p := range paths {
			req, _ := http.NewRequest(p.method, base+p.path, strings.NewReader(`{"name":"a"}`))
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || len(body) != 0 {
				t.Errorf("%s %s with %q: %d %q; want 401 and an empty body", p.method, p.path, auth, resp.StatusCode, body)
			}
		}
	}
}

// TestBadRequestsNameTheField posts bad bodies and checks the 400 names the field.
func TestBadRequestsNameTheField(t *testing.T) {
	_, _, base := testServer(t)
	cases := []struct{ path, body, field string }{
		{"/v1/sensors", `{"name":"a","address":"a:1","groups":["local"],"version":3}`, "version"},
		{"/v1/sensors", `{"name":"a","address":"a:1","groups":["local"],"version":"1","colour":1}`, "colour"},
		{"/v1/sensors", `{"name":"` + strings.Repeat("x", MaxName+1) + `","address":"a:1","groups":["local"],"version":"1"}`, "name"},
		{"/v1/sensors", `{"name":"a b","address":"a:1","groups":["local"],"version":"1"}`, "name"},
		{"/v1/sensors", `{"name":"a","address":"a:1","groups":[],"version":"1"}`, "groups"},
		{"/v1/sensors", `{"name":"a","address":"a:1","groups":["local",""],"version":"1"}`, "groups[1]"},
		{"/v1/results", `{"src":"a","dst":"b","kind":"jitter","test_time_s":5,"measured_at":"2026-03-01T00:00:00Z"}`, "kind"},
		{"/v1/results", `{"src":"a","dst":"b","kind":"bandwidth","bandwidth_bps":-1,"test_time_s":5,"measured_at":"2026-03-01T00:00:00Z"}`, "bandwidth_bps"},
		{"/v1/results", `{"src":"a","dst":"b","kind":"bandwidth","bandwidth_bps":1,"test_time_s":5,"measured_at":"yesterday"}`, "measured_at"},
		{"/v1/results", `{"src":"a","dst":"b","kind":"bandwidth","bandwidth_bps":"fast","test_time_s":5}`, "bandwidth_bps"},
		{"/v1/results", `{"src":"a","dst":"a","kind":"bandwidth","bandwidth_bps":1,"test_time_s":5,"measured_at":"2026-03-01T00:00:00Z"}`, "dst"},
		{"/v1/results", `{"src":"a","dst":"b","kind":"latency","latency_p50_ms":3,"latency_p90_ms":2,"latency_p99_ms":4,"test_time_s":5,"measured_at":"2026-03-01T00:00:00Z"}`, "latency_p99_ms"},
		{"/v1/forecasts", `{"src":"a","dst":"b","kind":"latency","value":1,"error":0,"made_at":"2026-03-01T00:00:00Z"}`, "method"},
		{"/v1/forecasts", `{"src":"a","dst":"b"`, ""},
		{"/v1/forecasts", `{} {}`, ""},
	}
	for _, c := range cases {
		code, fe := post(t, base+c.path, c.body)
		if code != http.StatusBadRequest || fe.Field != c.field || fe.Msg == "" {
			t.Errorf("POST %s %.60s: %d %+v; want 400 naming field %q", c.path, c.body, code, fe, c.field)
		}
	}
	code, _ := post(t, base+"/v1/results", `{"src":"`+strings.Repeat("a", MaxBody)+`"}`)
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over %d bytes: %d; want 413", MaxBody, code)
	}
	for _, q := range []string{"kind=x", "since=monday", "latest=maybe", "limit=0", "limit=1000001", "src=a%20b"} {
		resp := get(t, base+"/v1/results?"+q)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET /v1/results?%s: %d; want 400", q, resp.StatusCode)
		}
	}
}

func post(t *testing.T, url, body string) (int, FieldError) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var fe FieldError
	json.NewDecoder(resp.Body).Decode(&fe) //nolint:errcheck // a 413 may carry no JSON

	return resp.StatusCode, fe
}

func get(t *testing.T, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
