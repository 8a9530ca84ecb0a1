package controller

import (
	"context"
	"math"
	"strings"
	"sync"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/placement"
	"github.com/diperf/diperf/internal/sensor"
)

// meshLinks is placement.Mesh over the sensor directory: the sites of
// its live sensors, and the latest figures of each pair between the
// candidates' sensors and the target (netmap.Pairs: measured, or
// estimated along the hierarchy), read once.
type meshLinks struct {
	c      *directory.Client
	target string
	names  []string

	once sync.Once
	rows []sensor.Row
	err  error
}

// Sites maps each live sensor to its site.
func (m *meshLinks) Sites(ctx context.Context) (map[string]string, error) {
	ss, err := m.c.Sensors(ctx, "")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range netmap.Peers(ss) {
		if !p.Stale {
			out[p.Name] = p.Site
		}
	}
	return out, nil
}

// Link is the latest figures of src → dst.
func (m *meshLinks) Link(ctx context.Context, src, dst string) (placement.Link, bool, error) {
	m.once.Do(func() { m.rows, _, m.err = netmap.Pairs(ctx, m.c, m.target, m.names) })
	if m.err != nil {
		return placement.Link{}, false, m.err
	}
	for _, r := range m.rows {
		if r.Src == src && r.Dst == dst {
			basis := "measured"
			if r.Estimated {
				basis = "estimated along the sensor hierarchy via " + strings.Join(r.Via, " ")
			}
			return placement.Link{BandwidthBps: r.BandwidthBps, LatencyMs: r.LatencyMs, ErrBps: math.NaN(), Basis: basis, Usable: true}, true, nil
		}
	}
	return placement.Link{}, false, nil
}

// failedMesh is a mesh that could not be reached (its token or CA file).
type failedMesh struct{ err error }

func (f failedMesh) Sites(context.Context) (map[string]string, error) { return nil, f.err }
func (f failedMesh) Link(context.Context, string, string) (placement.Link, bool, error) {
	return placement.Link{}, false, f.err
}

// probeRunner has the mesh test a pair now (issue 25's on-demand tests,
// directory.Client's RequestProbe and WaitProbe); nil until this build's
// directory client offers them: a pair the mesh has no figures for is
// then left out, saying so.
func probeRunner(*directory.Client) placement.ProbeRunner { return nil }
