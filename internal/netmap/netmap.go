// Package netmap reads the sensor mesh's latest map from its directory:
// every pair of live sensors, measured or estimated along the hierarchy
// (`diperf netmap`), and the pairs between a run's tester hosts and its
// target (the experiment key sensors).
package netmap

import (
	"context"
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/sensor"
)

// SitePrefix marks the group that carries a sensor's site in the
// directory.
const SitePrefix = "site:"

// Fetch reads the sensors and the latest result of each pair and kind
// from the directory and makes the map.
func Fetch(ctx context.Context, c *directory.Client) ([]sensor.Row, error) {
	ss, err := c.Sensors(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("netmap: %w", err)
	}
	rs, err := c.Results(ctx, directory.Query{Latest: true})
	if err != nil {
		return nil, fmt.Errorf("netmap: %w", err)
	}
	return sensor.Map(Measured(rs), Peers(ss)), nil
}

// Measured folds the latest bandwidth and latency results of each pair
// into one link (a pair with a latency but no bandwidth result is left
// out: the map is of bandwidths first).
func Measured(rs []directory.Result) sensor.Measured {
	m := sensor.Measured{}
	lat := map[[2]string]float64{}
	for _, r := range rs {
		if r.Kind == string(sensor.Latency) {
			lat[[2]string{r.Src, r.Dst}] = r.LatencyMs
		}
	}
	for _, r := range rs {
		if r.Kind == string(sensor.Bandwidth) {
			m.Put(r.Src, r.Dst, sensor.Link{BandwidthBps: r.BandwidthBps, LatencyMs: lat[[2]string{r.Src, r.Dst}], At: r.MeasuredAt})
		}
	}
	return m
}

// Peers turns the directory's sensors into peers, the site taken from
// its "site:NAME" group.
func Peers(ss []directory.Sensor) []sensor.Peer {
	peers := make([]sensor.Peer, 0, len(ss))
	for _, s := range ss {
		p := sensor.Peer{Name: s.Name, Addr: s.Address, Version: s.Version, Stale: s.State == directory.StateStale}
		for _, g := range s.Groups {
			if site, ok := strings.CutPrefix(g, SitePrefix); ok {
				p.Site = site
			} else {
				p.Groups = append(p.Groups, g)
			}
		}
		peers = append(peers, p)
	}
	return peers
}
