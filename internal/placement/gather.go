package placement

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/diperf/diperf/internal/experiment"
)

// Mesh is what the selection reads of the sensor mesh.
type Mesh interface {
	// Sites maps each live sensor's name to its site.
	Sites(ctx context.Context) (map[string]string, error)
	// Link is the mesh's latest figures (or forecast) of src → dst; ok
	// is false when it has none.
	Link(ctx context.Context, src, dst string) (l Link, ok bool, err error)
}

// ProbeRunner has the mesh test a pair now (diperf probe: sensor src
// tests dst within its budget) and returns what it measured.
type ProbeRunner interface {
	Probe(ctx context.Context, src, dst string) (Link, error)
}

// CPUProber checks a host's idle CPU now, in percent.
type CPUProber interface {
	IdleCPU(ctx context.Context, host string) (float64, error)
}

// Host is one candidate host and its sensor's name in the mesh.
type Host struct {
	Name   string
	Sensor string
}

// Sources are where Gather reads the figures; a nil one gives none.
type Sources struct {
	Mesh   Mesh
	Target string // the target's sensor name
	Probe  ProbeRunner
	CPU    CPUProber
}

// maxLatencyMs bounds a latency a mesh may report: a minute.
const maxLatencyMs = 60e3

// Gather reads every host's figures at once: its site and link toward
// the target from the mesh (a pair the mesh has no usable figures for
// is probed when s.Probe is set), its idle CPU from s.CPU. A figure
// beyond what is physically possible is refused with its reason.
func Gather(ctx context.Context, hosts []Host, s Sources) []Candidate {
	sites, siteErr := map[string]string{}, error(nil)
	if s.Mesh != nil {
		sites, siteErr = s.Mesh.Sites(ctx)
	}
	out := make([]Candidate, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		out[i] = Candidate{Host: h.Name, Site: sites[h.Sensor], IdleCPU: math.NaN()}
		wg.Go(func() {
			c := &out[i]
			c.IdleCPU, c.NoCPU = idleCPU(ctx, s.CPU, h.Name)
			switch {
			case s.Mesh == nil:
				c.NoLink = "the experiment has no sensors key"
			case siteErr != nil:
				c.NoLink = "the sensor directory: " + siteErr.Error()
			default:
				c.Link, c.NoLink = link(ctx, s, h.Sensor)
			}
		})
	}
	wg.Wait()
	return out
}

// idleCPU checks host's idle CPU: NaN and why when it cannot.
func idleCPU(ctx context.Context, p CPUProber, host string) (float64, string) {
	if p == nil {
		return math.NaN(), "this testbed cannot check it"
	}
	v, err := p.IdleCPU(ctx, host)
	switch {
	case err != nil:
		return math.NaN(), err.Error()
	case math.IsNaN(v) || v < 0 || v > 100:
		return math.NaN(), fmt.Sprintf("refused: an idle share of %v%% is not one", v)
	}
	return v, ""
}

// link reads sensor → target from the mesh, or probes it: nil and why
// when neither gives usable figures.
func link(ctx context.Context, s Sources, sensor string) (*Link, string) {
	l, ok, err := s.Mesh.Link(ctx, sensor, s.Target)
	if err != nil {
		return nil, "the sensor directory: " + err.Error()
	}
	if ok && l.Usable {
		return checked(l, "")
	}
	why := fmt.Sprintf("the mesh has no figures of %s → %s", sensor, s.Target)
	if ok {
		why = fmt.Sprintf("the mesh's figures of %s → %s are %s, whose error is not known", sensor, s.Target, l.Basis)
	}
	if s.Probe == nil {
		return nil, why + " (no on-demand test: testbed.select.probe is off, or this build cannot ask for one)"
	}
	p, err := s.Probe.Probe(ctx, sensor, s.Target)
	if err != nil {
		return nil, why + ", and the probe failed: " + err.Error()
	}
	p.Usable = true
	if p.Basis == "" {
		p.Basis = "probed now"
	}
	return checked(p, why+"; probed: ")
}

// checked returns l, or nil and why when a figure of it is not one a
// link can have.
func checked(l Link, pre string) (*Link, string) {
	switch {
	case math.IsNaN(l.BandwidthBps) || l.BandwidthBps < 0 || l.BandwidthBps > experiment.MaxBitRate:
		return nil, fmt.Sprintf("%srefused: a bandwidth of %v bit/s is not a link's", pre, l.BandwidthBps)
	case math.IsNaN(l.LatencyMs) || l.LatencyMs < 0 || l.LatencyMs > maxLatencyMs:
		return nil, fmt.Sprintf("%srefused: a latency of %v ms is not a link's", pre, l.LatencyMs)
	}
	return &l, ""
}
