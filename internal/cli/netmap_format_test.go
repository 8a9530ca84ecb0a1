package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/sensor"
	"github.com/diperf/diperf/internal/sensord"
)

// TestNetmapUnknownAndMicrosecondLatency: over a real directory, a pair
// measured for bandwidth but never for latency shows its latency as
// unknown (? in the table, null in --json), not 0.0 ms, and a latency of
// 0.42 ms shows as 420µs, not 0.4ms.
func TestNetmapUnknownAndMicrosecondLatency(t *testing.T) {
	lab := newMeshLab(t)
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		if _, err := lab.c.Register(ctx, directory.Registration{Name: n, Address: "127.0.0.1:1", Version: "1",
			Groups: []string{"local", netmap.SitePrefix + "S"}, Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
	}
	d := sensord.NewDirectory(lab.c)
	at := time.Now().Add(-time.Minute)
	for _, r := range []sensor.Result{
		{Src: "a", Dst: "b", Kind: sensor.Bandwidth, Measurement: sensor.Measurement{BandwidthBps: 50e6, SteadyBps: 50e6}},
		{Src: "a", Dst: "b", Kind: sensor.Latency, Measurement: sensor.Measurement{LatencyMs: 0.42, P50Ms: 0.42, P90Ms: 0.42, P99Ms: 0.42}},
		{Src: "a", Dst: "c", Kind: sensor.Bandwidth, Measurement: sensor.Measurement{BandwidthBps: 10e6, SteadyBps: 10e6}},
	} {
		r.At, r.Took = at, time.Second
		if err := d.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"netmap", "--directory", lab.url, "--token-file", lab.tokenFile}
	var out, errb bytes.Buffer
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("netmap exit %d: %s", code, errb.String())
	}
	if tb := out.String(); !strings.Contains(tb, "50.0M/420µs") || !strings.Contains(tb, "10.0M/?") || strings.Contains(tb, "ms") {
		t.Errorf("table: want a → b as 50.0M/420µs and a → c as 10.0M/? (no ms at all):\n%s", tb)
	}
	out.Reset()
	if code := Main(append(args, "--json"), &out, &errb); code != 0 {
		t.Fatalf("netmap --json exit %d: %s", code, errb.String())
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("netmap --json: %v\n%s", err, out.String())
	}
	lat := map[string]any{}
	for _, r := range rows {
		lat[r["src"].(string)+">"+r["dst"].(string)] = r["latency_ms"]
	}
	if lat["a>b"] != 0.42 || lat["a>c"] != nil || lat["c>a"] != nil {
		t.Errorf("latency_ms: a>b %v, a>c %v, c>a %v; want 0.42, null, null\n%s", lat["a>b"], lat["a>c"], lat["c>a"], out.String())
	}
}
