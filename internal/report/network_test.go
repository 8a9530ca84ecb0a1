package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
)

// withNetwork is smallResult whose hosts the sensor mesh measured: host0
// and host1 share a host name's link (measured), host2's is estimated,
// host3 has none.
func withNetwork() *analyze.Result {
	r := smallResult()
	links := []*analyze.NetLink{
		{BandwidthBps: 900e6, LatencyMs: 0.5},
		{BandwidthBps: 900e6, LatencyMs: 0.5},
		{BandwidthBps: 20e6, LatencyMs: 40, Estimated: true},
		{},
	}
	for i := range r.Clients {
		r.Clients[i].Net = links[i]
	}
	r.Clients[1].Host = r.Clients[0].Host
	return r
}

// Graph (j) is last, one bubble per tester host with figures (its
// testers' calls summed), estimated hosts as rings with their legend
// entry; a run without figures has no graph (j), even with the sensors
// key's empty links.
func TestNetworkFigureOnlyWithFigures(t *testing.T) {
	t.Parallel()
	r := withNetwork()
	hs := hostLinks(r)
	if len(hs) != 2 || hs[0].ok != r.Clients[0].Whole.OK+r.Clients[1].Whole.OK || !hs[1].net.Estimated {
		t.Fatalf("hosts %+v: want host0 with both testers' calls, then host2 estimated", hs)
	}
	figs := figureRE.FindAllStringSubmatch(render(t, r), -1)
	if len(figs) != len(graphSpecs)+1 {
		t.Fatalf("page has %d figures, want %d", len(figs), len(graphSpecs)+1)
	}
	j := figs[len(figs)-1]
	if j[1] != NetworkGraphID || !strings.HasPrefix(j[2], `<svg id="`+NetworkGraphID+`"`) {
		t.Fatalf("last figure is %q, want %q", j[1], NetworkGraphID)
	}
	checkXML(t, j[2])
	if !strings.HasPrefix(j[3], "Figure j. Per tester host (2 with figures)") || !strings.Contains(j[3], "Rings: figures estimated") {
		t.Errorf("graph (j) caption %q", j[3])
	}
	if !strings.Contains(j[2], `fill-opacity="0" stroke="`) || !strings.Contains(j[2], "estimated along the sensor hierarchy") {
		t.Error("graph (j) draws no ring, or has no legend entry, for the estimated host")
	}
	c := networkChart(r)
	if len(c.series) != 2 || c.series[0].x[0] != 0.5 || c.series[0].y[0] != 900 || c.series[1].y[0] != 20 {
		t.Errorf("series %+v: want x = latency ms, y = Mbit/s", c.series)
	}

	empty := smallResult()
	for i := range empty.Clients {
		empty.Clients[i].Net = &analyze.NetLink{}
	}
	for _, r := range []*analyze.Result{smallResult(), empty} {
		if strings.Contains(render(t, r), idNetwork) {
			t.Error("a run without network figures has graph (j)")
		}
	}
}

// TestWriteFileNetwork: graph (j) is written beside the page.
func TestWriteFileNetwork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteFile(dir, withNetwork(), smallModel()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.GraphFile(NetworkGraphID)))
	if err != nil || !strings.HasPrefix(string(b), "<?xml") {
		t.Fatalf("%s: %v %.40q", NetworkGraphID, err, b)
	}
}
