package netmap

import (
	"context"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/sensor"
)

// meshOf registers sensors (name → site; a name starting with "g" is
// global) in a directory in process and returns its client and a put of
// a result pair (bandwidth and latency) and of a forecast pair.
func meshOf(t *testing.T, sites map[string]string) (c *directory.Client, put func(src, dst string, bw, lat float64), fc func(src, dst string, bw, bwErr, lat, latErr float64)) {
	t.Helper()
	c = newDirectory(t)
	ctx := context.Background()
	for name, site := range sites {
		groups := []string{"local", SitePrefix + site}
		if name[0] == 'g' {
			groups = append(groups, "global")
		}
		if _, err := c.Register(ctx, directory.Registration{Name: name, Address: "127.0.0.1:1", Version: "1",
			Groups: groups, Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)
	put = func(src, dst string, bw, lat float64) {
		for _, r := range []directory.Result{
			{Src: src, Dst: dst, Kind: string(sensor.Bandwidth), BandwidthBps: bw, TestTimeS: 1, MeasuredAt: at},
			{Src: src, Dst: dst, Kind: string(sensor.Latency), LatencyMs: lat, LatencyP50Ms: lat, LatencyP90Ms: lat, LatencyP99Ms: lat, TestTimeS: 1, MeasuredAt: at},
		} {
			if _, err := c.AddResult(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	fc = func(src, dst string, bw, bwErr, lat, latErr float64) {
		for _, f := range []directory.Forecast{
			{Src: src, Dst: dst, Kind: directory.KindBandwidth, Value: bw, Error: bwErr, Method: "median5", MadeAt: at},
			{Src: src, Dst: dst, Kind: directory.KindLatency, Value: lat, Error: latErr, Method: "mean", MadeAt: at},
		} {
			if _, err := c.AddForecast(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c, put, fc
}

// A path measured only the fast way (h1 → svc at 12.99 Gbit/s; svc → h1
// is a 20 Mbit/s path no sensor measured) gives no figure for svc → h1:
// the run's network.csv rows (PairLinks) never carry 12.99 Gbit/s for it, and
// PairLinks names it as known only from the other direction (the
// figure that went into a run's network.csv, issue 25).
func TestPairsNeverTakeTheReverseDirection(t *testing.T) {
	c, put, _ := meshOf(t, map[string]string{"svc": "A", "h1": "A"})
	put("h1", "svc", 12.99e9, 0.1)
	l, err := PairLinks(context.Background(), c, "svc", []string{"h1"})
	if err != nil {
		t.Fatal(err)
	}
	rows := l.Rows
	for _, r := range rows {
		if r.Src == "svc" && r.Dst == "h1" {
			t.Errorf("svc → h1 in the run's rows: %+v; only h1 → svc is measured", r)
		}
	}
	if len(rows) != 1 || rows[0].Src != "h1" || rows[0].BandwidthBps != 12.99e9 || rows[0].Basis != sensor.BasisMeasured {
		t.Errorf("rows %+v, want h1 → svc measured", rows)
	}
	if len(l.Reverse) != 1 || l.Reverse[0].Src != "svc" || l.Reverse[0].Basis != sensor.BasisReverse {
		t.Errorf("PairLinks %+v: want svc → h1 known only the other way", l)
	}
}

// Forecast answers each kind of a pair: its own forecast; else composed
// along the hierarchy from the hops' forecasts, with the error of the
// bottleneck (and of any hop that could bind instead) and the summed
// latency errors; else the other direction's figure, labelled and not
// usable; else nothing.
func TestForecastBases(t *testing.T) {
	c, _, fc := meshOf(t, map[string]string{"a1": "A", "ga": "A", "b1": "B", "gb": "B"})
	fc("a1", "ga", 900e6, 50e6, 0.5, 0.1)
	fc("ga", "gb", 100e6, 30e6, 20, 2) // could bind below gb → b1: 70 Mbit/s at worst
	fc("gb", "b1", 90e6, 5e6, 1, 0.2)
	ctx := context.Background()
	f, err := Forecast(ctx, c, "a1", "b1")
	if err != nil {
		t.Fatal(err)
	}
	bw, lat := f.Bandwidth, f.Latency
	if bw.Basis != sensor.BasisHierarchy || !bw.Usable || !bw.ErrorKnown || bw.Value != 90e6 || bw.Error != 20e6 || len(bw.Via) != 2 {
		t.Errorf("a1 → b1 bandwidth %+v; want 90 Mbit/s ± 20 Mbit/s along ga, gb", bw)
	}
	if lat.Basis != sensor.BasisHierarchy || !lat.Usable || lat.Value != 21.5 || !near(lat.Error, 2.3) {
		t.Errorf("a1 → b1 latency %+v; want 21.5 ± 2.3 ms", lat)
	}
	if f, _ := Forecast(ctx, c, "a1", "ga"); f.Bandwidth.Basis != sensor.BasisMeasured || f.Bandwidth.Method != "median5" || !f.Bandwidth.Usable {
		t.Errorf("a1 → ga %+v; want its own forecast", f)
	}
	f, _ = Forecast(ctx, c, "ga", "a1")
	if f.Bandwidth.Basis != sensor.BasisReverse || f.Bandwidth.Usable || f.Bandwidth.ErrorKnown || f.Latency.Usable {
		t.Errorf("ga → a1 %+v; want a1 → ga's figure labelled reverse, not usable", f)
	}
	f, _ = Forecast(ctx, c, "b1", "a1") // every hop known only the other way
	if f.Bandwidth.Usable || f.Bandwidth.Basis != sensor.BasisReverse || f.Latency.Usable {
		t.Errorf("b1 → a1 %+v; want no usable figure", f)
	}
	if f, _ := Forecast(ctx, c, "a1", "nobody"); f.Bandwidth.Basis != "" || f.Latency.Basis != "" || f.Bandwidth.Usable {
		t.Errorf("a1 → nobody %+v; want nothing", f)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
