package controller

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/directory/directorytest"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/placement"
	"github.com/diperf/diperf/internal/sensor"
)

// The mesh's adapter gives each candidate its sensor's site and its
// latest figures toward the target, measured or estimated along the
// hierarchy (and says so); with spread: site and min_bandwidth the
// choice follows them, a host without a sensor left out with its reason.
func TestSelectFromMesh(t *testing.T) {
	t.Parallel()
	_, c := directorytest.Start(t, nil)
	ctx := context.Background()
	reg := func(name, site string, groups ...string) {
		if _, err := c.Register(ctx, directory.Registration{Name: name, Address: "127.0.0.1:1", Version: "1",
			Groups: append(groups, netmap.SitePrefix+site), Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
	}
	put := func(src, dst string, bw, lat float64) {
		at := time.Now().UTC()
		for _, r := range []directory.Result{
			{Src: src, Dst: dst, Kind: string(sensor.Bandwidth), BandwidthBps: bw, TestTimeS: 1, MeasuredAt: at},
			{Src: src, Dst: dst, Kind: string(sensor.Latency), LatencyMs: lat, LatencyP50Ms: lat, LatencyP90Ms: lat, LatencyP99Ms: lat, TestTimeS: 1, MeasuredAt: at},
		} {
			if _, err := c.AddResult(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	reg("svc", "S", "local", "global")
	reg("a1", "A", "local", "global")
	reg("a2", "A", "local")
	reg("b1", "B", "local", "global")
	put("a1", "svc", 80e6, 5)
	put("a2", "a1", 900e6, 1) // a2 → svc: estimated via a1, its bottleneck 80 Mbit/s
	put("b1", "svc", 40e6, 20)
	names := []string{"a1", "a2", "b1", "gone"}
	mesh := &meshLinks{c: c, target: "svc", names: names}
	var hosts []placement.Host
	for _, n := range names {
		hosts = append(hosts, placement.Host{Name: "root@" + n, Sensor: n})
	}
	cands := placement.Gather(ctx, hosts, placement.Sources{Mesh: mesh, Target: "svc"})
	if cands[1].Site != "A" || cands[1].Link == nil || !strings.HasPrefix(cands[1].Link.Basis, "estimated along the sensor hierarchy via a1") {
		t.Errorf("a2: %+v %+v", cands[1], cands[1].Link)
	}
	res := placement.Choose(cands, placement.Rules{Testers: 2, MinBps: 30e6, Spread: "site", Network: true})
	if !slices.Equal(res.Chosen, []string{"root@a1", "root@b1"}) {
		t.Errorf("chose %v, want a1 then b1 (one per site)", res.Chosen)
	}
	for _, d := range res.Decisions {
		switch d.Host {
		case "root@a2":
			if !strings.Contains(d.Reason, "not needed: 2 chosen") {
				t.Errorf("a2: %q", d.Reason)
			}
		case "root@gone":
			if d.Reason != "no figures: the mesh has no figures of gone → svc (no on-demand test: testbed.select.probe is off, or this build cannot ask for one)" {
				t.Errorf("gone: %q", d.Reason)
			}
		}
	}
	sites, err := (failedMesh{context.DeadlineExceeded}).Sites(ctx)
	if sites != nil || err == nil {
		t.Error("a failed mesh has sites")
	}
}
