package netmap

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/directory/directorytest"
	"github.com/diperf/diperf/internal/sensor"
)

// newDirectory serves a directory in process and returns its client.
func newDirectory(t *testing.T) *directory.Client {
	_, c := directorytest.Start(t, nil)
	return c
}

// PairLinks gives a tester host's sensor measured both ways with the target,
// another's estimated through its site's global sensor, and names the
// sensors the directory does not have.
func TestPairs(t *testing.T) {
	c := newDirectory(t)
	ctx := context.Background()
	reg := func(name, site string, groups ...string) {
		if _, err := c.Register(ctx, directory.Registration{Name: name, Address: "127.0.0.1:1", Version: "1",
			Groups: append(groups, SitePrefix+site), Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
	}
	reg("svc", "A", "local", "global")
	reg("h1", "A", "local")
	reg("gb", "B", "local", "global")
	reg("h2", "B", "local")
	at := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	put := func(src, dst string, bw, lat float64) {
		for _, r := range []directory.Result{
			{Src: src, Dst: dst, Kind: string(sensor.Bandwidth), BandwidthBps: bw, TestTimeS: 1, MeasuredAt: at},
			{Src: src, Dst: dst, Kind: string(sensor.Latency), LatencyMs: lat, LatencyP50Ms: lat, LatencyP90Ms: lat, LatencyP99Ms: lat, TestTimeS: 1, MeasuredAt: at},
		} {
			if _, err := c.AddResult(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("h1", "svc", 900e6, 0.5)
	put("svc", "h1", 800e6, 0.6)
	put("h2", "gb", 100e6, 1)
	put("gb", "svc", 20e6, 30)
	l, err := PairLinks(ctx, c, "svc", []string{"h2", "h1", "nobody", "h1"})
	if err != nil {
		t.Fatal(err)
	}
	rows, missing := l.Rows, l.Missing
	if !reflect.DeepEqual(missing, []string{"nobody"}) {
		t.Errorf("missing %v, want [nobody]", missing)
	}
	got := map[[2]string]sensor.Row{}
	for _, r := range rows {
		got[[2]string{r.Src, r.Dst}] = r
	}
	if len(rows) != 3 {
		t.Errorf("rows %+v: want h1 to svc and back, h2 to svc (svc → h2 is known only from hops the other way)", rows)
	}
	if r := got[[2]string{"h1", "svc"}]; r.BandwidthBps != 900e6 || r.LatencyMs != 0.5 || r.Estimated || !r.MeasuredAt.Equal(at) {
		t.Errorf("h1 → svc = %+v, want measured 900 Mbit/s, 0.5 ms", r)
	}
	if r := got[[2]string{"h2", "svc"}]; r.BandwidthBps != 20e6 || r.LatencyMs != 31 || !r.Estimated || !reflect.DeepEqual(r.Via, []string{"gb"}) {
		t.Errorf("h2 → svc = %+v, want estimated via gb: the bottleneck 20 Mbit/s, 31 ms", r)
	}
	if _, err := PairLinks(ctx, mustClient(t, "http://127.0.0.1:1"), "svc", nil); err == nil {
		t.Error("a directory that does not answer gave no error")
	}
}

func mustClient(t *testing.T, url string) *directory.Client {
	t.Helper()
	c, err := directory.NewClient(url, []byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
