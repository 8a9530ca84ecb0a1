package directory

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// result is a valid bandwidth result body between registered sensors a
// and b with the fields of extra put in place of (or beside) its own.
func resultBody(extra string) string {
	fields := map[string]string{"src": `"a"`, "dst": `"b"`, "kind": `"bandwidth"`, "bandwidth_bps": "1e6",
		"test_time_s": "5", "measured_at": `"2026-03-01T00:00:00Z"`}
	for _, kv := range strings.Split(extra, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			fields[k] = v
		}
	}
	var b strings.Builder
	b.WriteString("{")
	for _, k := range []string{"src", "dst", "kind", "bandwidth_bps", "bandwidth_after_slow_start_bps", "latency_ms",
		"latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "test_time_s", "measured_at", "busy", "missed"} {
		if v, ok := fields[k]; ok {
			if b.Len() > 1 {
				b.WriteString(",")
			}
			b.WriteString(`"` + k + `":` + v)
		}
	}
	return b.String() + "}"
}

// TestImplausibleValuesRefused: figures no test can measure, and times the
// store cannot hold or the directory's clock has not reached, are refused
// naming the field; the same result with plausible figures is taken.
func TestImplausibleValuesRefused(t *testing.T) {
	c, _, base := testServer(t) // its clock: 2026-03-01 12:00 UTC
	registerAll(t, c, "a", "b")
	lat := `kind="latency";bandwidth_bps=0;latency_p50_ms=1;latency_p90_ms=2;latency_p99_ms=3`
	cases := []struct{ path, body, field string }{
		{"/v1/results", resultBody("bandwidth_bps=1e308"), "bandwidth_bps"},
		{"/v1/results", resultBody("bandwidth_bps=1.1e12"), "bandwidth_bps"},
		{"/v1/results", resultBody("bandwidth_after_slow_start_bps=1e308"), "bandwidth_after_slow_start_bps"},
		{"/v1/results", resultBody("test_time_s=1e308"), "test_time_s"},
		{"/v1/results", resultBody("test_time_s=121"), "test_time_s"},
		{"/v1/results", resultBody(lat + ";latency_p99_ms=1e308"), "latency_p99_ms"},
		{"/v1/results", resultBody(lat + ";latency_ms=3600001"), "latency_ms"},
		{"/v1/results", resultBody("busy=1000000000000000"), "busy"},
		{"/v1/results", resultBody(`measured_at="9999-12-31T00:00:00Z"`), "measured_at"},
		{"/v1/results", resultBody(`measured_at="2262-04-12T00:00:00Z"`), "measured_at"},
		{"/v1/results", resultBody(`measured_at="1999-12-31T23:59:59Z"`), "measured_at"},
		{"/v1/results", resultBody(`measured_at="2026-03-01T13:00:01Z"`), "measured_at"}, // > 1 h ahead
		{"/v1/forecasts", `{"src":"a","dst":"b","kind":"bandwidth","value":1e308,"error":0,"method":"last","made_at":"2026-03-01T00:00:00Z"}`, "value"},
		{"/v1/forecasts", `{"src":"a","dst":"b","kind":"latency","value":1,"error":1e308,"method":"last","made_at":"2026-03-01T00:00:00Z"}`, "error"},
		{"/v1/forecasts", `{"src":"a","dst":"b","kind":"latency","value":1,"error":0,"method":"last","made_at":"9999-12-31T00:00:00Z"}`, "made_at"},
	}
	for _, tc := range cases {
		if code, fe := post(t, base+tc.path, tc.body); code != http.StatusBadRequest || fe.Field != tc.field {
			t.Errorf("POST %s %s: %d %+v; want 400 naming %q", tc.path, tc.body, code, fe, tc.field)
		}
	}
	for _, ok := range []string{resultBody("bandwidth_bps=1e12;test_time_s=120"),
		resultBody(`measured_at="2026-03-01T12:59:59Z"`), resultBody(lat + ";latency_ms=120000;latency_p99_ms=120000")} {
		if code, fe := post(t, base+"/v1/results", ok); code != http.StatusCreated {
			t.Errorf("POST %s: %d %+v; want 201 (plausible)", ok, code, fe)
		}
	}
}

// TestQueryTimesOutsideTheStoreRefused: a since or until the store's
// Unix nanoseconds cannot hold is refused, not wrapped round into a
// bound that selects everything.
func TestQueryTimesOutsideTheStoreRefused(t *testing.T) {
	c, _, base := testServer(t)
	registerAll(t, c, "a", "b")
	if code, fe := post(t, base+"/v1/results", resultBody("")); code != http.StatusCreated {
		t.Fatalf("a valid result: %d %+v", code, fe)
	}
	for _, q := range []string{"since=1600-01-01T00:00:00Z", "until=2300-01-01T00:00:00Z",
		"since=9999-12-31T00:00:00Z", "until=1677-01-01T00:00:00Z"} {
		for _, path := range []string{"/v1/results?", "/v1/forecasts?"} {
			if resp := get(t, base+path+q); resp.StatusCode != http.StatusBadRequest {
				t.Errorf("GET %s%s: %d; want 400", path, q, resp.StatusCode)
			}
		}
	}
}

// TestResultsOnlyBetweenRegisteredSensors: a result or forecast naming a
// sensor the directory does not know is refused: 404 for the writer (it
// registers again), 400 for its peer (it will never be taken).
func TestResultsOnlyBetweenRegisteredSensors(t *testing.T) {
	c, _, base := testServer(t)
	registerAll(t, c, "a")
	fc := `{"src":"%s","dst":"%s","kind":"bandwidth","value":1,"error":0,"method":"last","made_at":"2026-03-01T00:00:00Z"}`
	cases := []struct {
		path, body string
		code       int
		field      string
	}{
		{"/v1/results", resultBody(`src="ghost";dst="a"`), http.StatusNotFound, "src"},
		{"/v1/results", resultBody(`dst="ghost"`), http.StatusBadRequest, "dst"},
		{"/v1/forecasts", strings.NewReplacer("%s", "ghost").Replace(strings.Replace(fc, "%s", "a", 1)), http.StatusBadRequest, "dst"},
		{"/v1/forecasts", strings.Replace(strings.Replace(fc, "%s", "ghost", 1), "%s", "a", 1), http.StatusNotFound, "src"},
	}
	for _, tc := range cases {
		if code, fe := post(t, base+tc.path, tc.body); code != tc.code || fe.Field != tc.field {
			t.Errorf("POST %s %s: %d %+v; want %d naming %q", tc.path, tc.body, code, fe, tc.code, tc.field)
		}
	}
	if rs, err := c.Results(context.Background(), Query{}); err != nil || len(rs) != 0 {
		t.Errorf("results stored for unknown sensors: %+v, %v", rs, err)
	}
}
