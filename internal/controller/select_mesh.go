package controller

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/placement"
	"github.com/diperf/diperf/internal/sensor"
)

// meshLinks is placement.Mesh over the sensor directory: the sites of
// its live sensors, and the figures of each pair between the candidates'
// sensors and the target: the mesh's forecasts with their expected errors
// (the pair's own, or estimated along the hierarchy), else the latest
// results (a pair tested once has no forecast yet). The directory is read
// once for all of it: the sensors and latest results (netmap.PairLinks),
// then the latest forecasts over the same sensors. A figure known only
// from the other direction is not usable: its error is not known.
type meshLinks struct {
	c      *directory.Client
	target string
	names  []string

	once  sync.Once
	fc    *netmap.Forecasts
	rows  []sensor.Row
	peers []sensor.Peer
	err   error
}

// load reads the directory, once.
func (m *meshLinks) load(ctx context.Context) error {
	m.once.Do(func() {
		l, err := netmap.PairLinks(ctx, m.c, m.target, m.names)
		if err != nil {
			m.err = err
			return
		}
		fs, err := m.c.Forecasts(ctx, directory.Query{Latest: true})
		if err != nil {
			m.err = fmt.Errorf("reading the forecasts: %w", err)
			return
		}
		m.fc, m.rows, m.peers = netmap.NewForecasts(fs, l.Peers), l.Rows, l.Peers
	})
	return m.err
}

// Sites maps each live sensor to its site.
func (m *meshLinks) Sites(ctx context.Context) (map[string]string, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range m.peers {
		if !p.Stale {
			out[p.Name] = p.Site
		}
	}
	return out, nil
}

// Link is the figures of src → dst: forecast, else the latest results.
func (m *meshLinks) Link(ctx context.Context, src, dst string) (placement.Link, bool, error) {
	if err := m.load(ctx); err != nil {
		return placement.Link{}, false, err
	}
	if l, ok := forecastLink(m.fc.Pair(src, dst)); ok {
		return l, true, nil
	}
	for _, r := range m.rows {
		if r.Src == src && r.Dst == dst {
			basis := "measured once, no forecast yet"
			if r.Estimated {
				basis = "estimated along the sensor hierarchy via " + strings.Join(r.Via, " ") + ", no forecast yet"
			}
			return placement.Link{BandwidthBps: r.BandwidthBps, LatencyMs: r.LatencyMs, ErrBps: math.NaN(), Basis: basis, Usable: true}, true, nil
		}
	}
	return placement.Link{}, false, nil
}

// forecastLink is the placement link of a pair's forecasts; false when
// the mesh has no bandwidth forecast for it. A figure whose error is not
// known (the other direction's) is there but not usable.
func forecastLink(p netmap.PairFigures) (placement.Link, bool) {
	bw, lat := p.Bandwidth, p.Latency
	if bw.Basis == "" {
		return placement.Link{}, false
	}
	l := placement.Link{BandwidthBps: bw.Value, ErrBps: math.NaN(), Usable: bw.Usable}
	if bw.ErrorKnown {
		l.ErrBps = bw.Error
	}
	if lat.Usable {
		l.LatencyMs = lat.Value
	}
	switch bw.Basis {
	case sensor.BasisMeasured:
		l.Basis = "forecast (" + bw.Method + ")"
	case sensor.BasisHierarchy:
		l.Basis = "forecast estimated along the sensor hierarchy via " + strings.Join(bw.Via, " ")
	default:
		l.Basis = "known only from the target toward the host (error unknown)"
	}
	return l, true
}

// failedMesh is a mesh that could not be reached (its token or CA file).
type failedMesh struct{ err error }

func (f failedMesh) Sites(context.Context) (map[string]string, error) { return nil, f.err }
func (f failedMesh) Link(context.Context, string, string) (placement.Link, bool, error) {
	return placement.Link{}, false, f.err
}

// probeRunner has the mesh test a pair now (diperf probe's on-demand
// tests, through the directory).
func probeRunner(c *directory.Client) placement.ProbeRunner { return &meshProbes{c: c} }

// meshProbes asks the source sensor, through the directory, to test the
// pair now: bandwidth, then latency, one probe at a time (the directory
// holds a requester to a few open probes and a few a minute; a refusal
// for that is waited out while the selection's time lasts).
type meshProbes struct {
	c  *directory.Client
	mu sync.Mutex
}

// probeBusyWait is how long a probe refused for the requester's rate
// waits before it asks again.
const probeBusyWait = 5 * time.Second

// Probe tests src → dst now: its bandwidth, and its latency when that
// test ends well too.
func (m *meshProbes) Probe(ctx context.Context, src, dst string) (placement.Link, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	bw, err := m.one(ctx, src, dst, directory.KindBandwidth)
	if err != nil {
		return placement.Link{}, err
	}
	l := placement.Link{BandwidthBps: bw.BandwidthBps, ErrBps: math.NaN(), Basis: "probed now", Usable: true}
	if lat, err := m.one(ctx, src, dst, directory.KindLatency); err == nil {
		l.LatencyMs = lat.LatencyMs
	}
	return l, nil
}

// one runs one probe of kind and waits for its result.
func (m *meshProbes) one(ctx context.Context, src, dst, kind string) (directory.Result, error) {
	for {
		p, err := m.c.RequestProbe(ctx, src, dst, kind)
		var api *directory.APIError
		if errors.As(err, &api) && api.Status == http.StatusTooManyRequests && clock.Sleep(ctx, probeBusyWait) {
			continue
		}
		if err != nil {
			return directory.Result{}, fmt.Errorf("asking for a %s test: %w", kind, err)
		}
		if p, err = m.c.WaitProbe(ctx, p.ID, 250*time.Millisecond); err != nil {
			return directory.Result{}, fmt.Errorf("%s test: %w", kind, err)
		}
		if p.State != directory.ProbeDone || p.Result == nil {
			return directory.Result{}, fmt.Errorf("%s test %s: %s", kind, p.State, p.Reason)
		}
		return *p.Result, nil
	}
}
