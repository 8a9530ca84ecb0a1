package sensor

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// An unknown latency shows as unknown in every form of the map (? in the
// table, null in JSON), never as 0 ms; a sub-millisecond one in µs; an
// estimate through a hop without a latency has none, not a short sum.
func TestMapUnknownAndSubMillisecondLatency(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0).UTC()
	peers := []Peer{
		{Name: "a1", Site: "A", Groups: []string{GroupLocal}},
		{Name: "a2", Site: "A", Groups: []string{GroupLocal, GroupGlobal}},
		{Name: "b2", Site: "B", Groups: []string{GroupLocal, GroupGlobal}},
	}
	m := Measured{}
	m.Put("a1", "a2", Link{BandwidthBps: 50e6, LatencyMs: 0.42, At: t0}) // 420 µs
	m.Put("a2", "b2", Link{BandwidthBps: 10e6, At: t0})                  // no latency result
	rows := Map(m, peers)
	var tb strings.Builder
	if err := WriteTable(&tb, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"50.0M/420µs", "10.0M/?", "10.0M/?*"} {
		if !strings.Contains(tb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tb.String())
		}
	}
	if strings.Contains(tb.String(), "0.0ms") || strings.Contains(tb.String(), "0.4ms") {
		t.Errorf("table shows an unknown or sub-millisecond latency in ms:\n%s", tb.String())
	}
	got := map[string]any{}
	for _, r := range decodeRows(t, rows) {
		got[r["src"].(string)+">"+r["dst"].(string)] = r["latency_ms"]
	}
	want := map[string]any{"a1>a2": 0.42, "a2>a1": 0.42, "a2>b2": nil, "b2>a2": nil, "a1>b2": nil, "b2>a1": nil}
	for pair, w := range want {
		if v, ok := got[pair]; !ok || v != w {
			t.Errorf("%s: latency_ms %v (present %v), want %v", pair, v, ok, w)
		}
	}
}

// TestLatencyText: µs below 1 ms, ms from there, ? for what is unknown.
func TestLatencyText(t *testing.T) {
	for ms, want := range map[float64]string{0.42: "420µs", 0.0042: "4.2µs", 0.9994: "999µs", 0.9995: "1.0ms", 21: "21.0ms",
		0: "?", -1: "?", math.NaN(): "?", math.Inf(1): "?"} {
		if got := LatencyText(ms); got != want {
			t.Errorf("LatencyText(%g) = %q, want %q", ms, got, want)
		}
	}
}

// No NaN or infinity from the data reaches the map's JSON, table or
// SVG: each parses and says unknown instead.
func TestMapWritersNonFinite(t *testing.T) {
	rows := []Row{
		{Src: "a", Dst: "b", BandwidthBps: math.NaN(), LatencyMs: math.Inf(1)},
		{Src: "b", Dst: "a", BandwidthBps: math.Inf(1), LatencyMs: math.NaN()},
		{Src: "a", Dst: "c", BandwidthBps: 1e308, LatencyMs: math.Inf(-1)},
		{Src: "c", Dst: "a", BandwidthBps: 1e-300, LatencyMs: 1e308},
	}
	for _, r := range decodeRows(t, rows)[:2] {
		if r["bandwidth_bps"] != nil || r["latency_ms"] != nil {
			t.Errorf("JSON row %v: want bandwidth_bps and latency_ms null", r)
		}
	}
	var tb strings.Builder
	if err := WriteTable(&tb, rows); err != nil {
		t.Fatal(err)
	}
	svg := HeatMapSVG(rows)
	wellFormedXML(t, svg)
	for name, out := range map[string]string{"table": tb.String(), "SVG": string(svg)} {
		if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
			t.Errorf("%s holds NaN or Inf:\n%s", name, out)
		}
	}
}

// decodeRows writes rows as `diperf netmap --json` does and reads them
// back as generic JSON.
func decodeRows(t *testing.T, rows []Row) []map[string]any {
	t.Helper()
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil || strings.Contains(string(b), "NaN") || strings.Contains(string(b), "Inf") {
		t.Fatalf("JSON %s: %v", b, err)
	}
	return out
}

// wellFormedXML fails t unless b is one well-formed XML document.
func wellFormedXML(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(b)))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, b)
		}
	}
}
