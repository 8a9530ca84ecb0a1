package placement

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// fakeMesh answers from its maps.
type fakeMesh struct {
	sites map[string]string
	links map[string]Link // by source sensor
	err   error
}

func (m fakeMesh) Sites(context.Context) (map[string]string, error) { return m.sites, m.err }
func (m fakeMesh) Link(_ context.Context, src, _ string) (Link, bool, error) {
	l, ok := m.links[src]
	return l, ok, nil
}

// fakeProbe measures what its map says, or fails.
type fakeProbe map[string]Link

func (p fakeProbe) Probe(_ context.Context, src, _ string) (Link, error) {
	if l, ok := p[src]; ok {
		return l, nil
	}
	return Link{}, errors.New("sensor " + src + " is busy")
}

// fakeCPU answers from its map, or fails.
type fakeCPU map[string]float64

func (c fakeCPU) IdleCPU(_ context.Context, host string) (float64, error) {
	if v, ok := c[host]; ok {
		return v, nil
	}
	return 0, errors.New("no /proc/stat")
}

func TestGather(t *testing.T) {
	t.Parallel()
	mesh := fakeMesh{sites: map[string]string{"s1": "A", "s2": "B", "s3": "B", "s4": "C", "s5": "C"}, links: map[string]Link{
		"s1": {BandwidthBps: 80e6, LatencyMs: 3, Usable: true, Basis: "measured"},
		"s2": {BandwidthBps: 13e9, Usable: false, Basis: "estimated from the reverse direction"},
		"s4": {BandwidthBps: math.Inf(1), LatencyMs: 1, Usable: true, Basis: "measured"},
	}}
	probe := fakeProbe{"s2": {BandwidthBps: 20e6, LatencyMs: 4}}
	cpu := fakeCPU{"h1": 97.5, "h2": 150, "h3": 50}
	hosts := []Host{{"h1", "s1"}, {"h2", "s2"}, {"h3", "s3"}, {"h4", "s4"}, {"h5", "s5"}}
	cs := Gather(context.Background(), hosts, Sources{Mesh: mesh, Target: "svc", Probe: probe, CPU: cpu})
	want := []struct {
		site, noLink, noCPU string
		bw                  float64
	}{
		{"A", "", "", 80e6},
		{"B", "", "refused: an idle share of 150% is not one", 20e6},
		{"B", "the mesh has no figures of s3 → svc, and the probe failed: sensor s3 is busy", "", 0},
		{"C", "refused: a bandwidth of +Inf bit/s is not a link's", "no /proc/stat", 0},
		{"C", "probe failed", "no /proc/stat", 0},
	}
	for i, w := range want {
		c := cs[i]
		if c.Host != hosts[i].Name || c.Site != w.site || !strings.Contains(c.NoLink, w.noLink) || (w.noCPU == "") != c.cpuKnown() ||
			!strings.Contains(c.NoCPU, w.noCPU) || c.bandwidth() != w.bw {
			t.Errorf("%s: %+v (link %+v), want site %s, no link %q, no CPU %q, bandwidth %g", c.Host, c, c.Link, w.site, w.noLink, w.noCPU, w.bw)
		}
	}
	if l := cs[1].Link; l == nil || !l.Usable || l.Basis != "probed now" {
		t.Errorf("h2's probed link: %+v, want usable, probed now (never the reverse direction's 13 Gbit/s)", l)
	}
	if cs[0].IdleCPU != 97.5 {
		t.Errorf("h1's idle CPU %v, want 97.5", cs[0].IdleCPU)
	}
}

// Without a probe runner an unmeasured pair says so; a directory that
// fails gives every host its error; no mesh at all says the key is
// missing.
func TestGatherWithout(t *testing.T) {
	t.Parallel()
	hosts := []Host{{"h1", "s1"}}
	cs := Gather(context.Background(), hosts, Sources{Mesh: fakeMesh{}, Target: "svc"})
	if c := cs[0]; c.Link != nil || !strings.Contains(c.NoLink, "no on-demand test") || c.cpuKnown() {
		t.Errorf("no probe runner: %+v", c)
	}
	cs = Gather(context.Background(), hosts, Sources{Mesh: fakeMesh{err: errors.New("connection refused")}, Target: "svc"})
	if c := cs[0]; c.NoLink != "the sensor directory: connection refused" {
		t.Errorf("a directory that fails: %q", c.NoLink)
	}
	cs = Gather(context.Background(), hosts, Sources{})
	if c := cs[0]; c.NoLink != "the experiment has no sensors key" || c.NoCPU == "" {
		t.Errorf("no mesh: %+v", c)
	}
}
