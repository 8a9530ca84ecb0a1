package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/directory/directorytest"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/sensor"
	"github.com/diperf/diperf/internal/sensord"
)

// meshLab is a directory in process, with its token file.
type meshLab struct {
	url, tokenFile string
	c              *directory.Client
}

func newMeshLab(t *testing.T) meshLab {
	t.Helper()
	url, c := directorytest.Start(t, nil)
	tf := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(tf, directorytest.Token, 0o600); err != nil {
		t.Fatal(err)
	}
	return meshLab{url: url, tokenFile: tf, c: c}
}

// The sensors of two sites write through the sensor's own adapter (site
// as a group, a forecast once one can be scored); netmap shows measured
// and estimated pairs, and forecast answers a measured pair in JSON.
func TestNetmapAndForecastOverADirectory(t *testing.T) {
	lab := newMeshLab(t)
	ctx := context.Background()
	reg := func(name, site string, groups ...string) {
		_, err := lab.c.Register(ctx, directory.Registration{Name: name, Address: "127.0.0.1:1", Version: "1",
			Groups: append(groups, netmap.SitePrefix+site), Capabilities: []string{"bandwidth", "latency"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	reg("a1", "A", "local")
	reg("a2", "A", "local", "global")
	reg("b2", "B", "local", "global")
	d := sensord.NewDirectory(lab.c)
	peers, err := d.Sensors(ctx)
	if err != nil || len(peers) != 3 {
		t.Fatalf("sensors %+v, %v", peers, err)
	}
	for _, p := range peers {
		if p.Site == "" || strings.HasPrefix(strings.Join(p.Groups, ","), netmap.SitePrefix) {
			t.Errorf("peer %+v: the site group was not taken apart", p)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write := func(src, dst string, k sensor.Kind, v float64, at time.Time) {
		m := sensor.Measurement{BandwidthBps: v, SteadyBps: v}
		if k == sensor.Latency {
			m = sensor.Measurement{LatencyMs: v, P50Ms: v, P90Ms: v, P99Ms: v}
		}
		if err := d.Write(ctx, sensor.Result{Src: src, Dst: dst, Kind: k, At: at, Took: time.Second, Measurement: m}); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range []float64{40e6, 50e6} {
		write("a1", "a2", sensor.Bandwidth, v, t0.Add(time.Duration(i)*time.Minute))
		write("a1", "a2", sensor.Latency, 1, t0.Add(time.Duration(i)*time.Minute))
	}
	write("a2", "b2", sensor.Bandwidth, 10e6, t0)
	write("a2", "b2", sensor.Latency, 20, t0)

	var out, errb bytes.Buffer
	if code := Main([]string{"netmap", "--directory", lab.url, "--token-file", lab.tokenFile, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("netmap exit %d: %s", code, errb.String())
	}
	var rows []sensor.Row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("netmap --json: %v\n%s", err, out.String())
	}
	found := false
	for _, r := range rows {
		if r.Src == "a1" && r.Dst == "b2" {
			found = r.Estimated && r.BandwidthBps == 10e6 && r.LatencyMs == 21
		}
	}
	if !found {
		t.Errorf("netmap: no a1 → b2 estimated at 10 Mbit/s, 21 ms: %+v", rows)
	}
	out.Reset()
	if code := Main([]string{"forecast", "a1", "a2", "--directory", lab.url, "--token-file", lab.tokenFile, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("forecast exit %d: %s", code, errb.String())
	}
	var fa forecastAnswer
	if err := json.Unmarshal(out.Bytes(), &fa); err != nil || fa.BandwidthBps == nil || fa.LatencyMs == nil {
		t.Fatalf("forecast --json: %v %s", err, out.String())
	}
	if fa.BandwidthBps.Method == "" || fa.BandwidthBps.Value < 40e6 || fa.BandwidthBps.Value > 50e6 {
		t.Errorf("bandwidth forecast %+v: want one between the two measurements, with its method", *fa.BandwidthBps)
	}
	errb.Reset()
	if code := Main([]string{"forecast", "a1", "b2", "--directory", lab.url, "--token-file", lab.tokenFile}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "no forecast for a1 → b2") {
		t.Errorf("forecast of an untested pair: exit %d, %q", code, errb.String())
	}
}
