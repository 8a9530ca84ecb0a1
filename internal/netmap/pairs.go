package netmap

import (
	"context"
	"fmt"
	"slices"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/sensor"
)

// Pairs reads from the directory the latest figures between each sensor
// of names and target, both ways, each measured or else estimated along
// the hierarchy (a pair with neither is left out). missing lists, sorted,
// the sensors of names and target that have no live registration (never
// registered, or stale), which can have no figures.
func Pairs(ctx context.Context, c *directory.Client, target string, names []string) (rows []sensor.Row, missing []string, err error) {
	ss, err := c.Sensors(ctx, "")
	if err != nil {
		return nil, nil, fmt.Errorf("listing the sensors: %w", err)
	}
	rs, err := c.Results(ctx, directory.Query{Latest: true})
	if err != nil {
		return nil, nil, fmt.Errorf("reading the results: %w", err)
	}
	peers := Peers(ss)
	missing = Missing(peers, append([]string{target}, names...))
	live := slices.DeleteFunc(peers, func(p sensor.Peer) bool { return p.Stale })
	m := Measured(rs)
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	for _, n := range names {
		if n == target {
			continue
		}
		for _, p := range [][2]string{{n, target}, {target, n}} {
			if l, ok := sensor.Estimate(m, live, p[0], p[1]); ok {
				rows = append(rows, sensor.Row{Src: p[0], Dst: p[1], BandwidthBps: l.BandwidthBps, LatencyMs: l.LatencyMs,
					MeasuredAt: l.At, Estimated: l.Estimated, Via: l.Via})
			}
		}
	}
	return rows, missing, nil
}

// Missing returns, sorted and once each, the names that no live peer of
// peers has.
func Missing(peers []sensor.Peer, names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.ContainsFunc(peers, func(p sensor.Peer) bool { return p.Name == n && !p.Stale }) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
