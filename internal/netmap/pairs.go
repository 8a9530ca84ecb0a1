package netmap

import (
	"context"
	"fmt"
	"slices"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/sensor"
)

// Links is what the directory knows between a run's tester hosts'
// sensors and its target.
type Links struct {
	Rows    []sensor.Row  // usable: measured, or estimated along the hierarchy
	Reverse []sensor.Row  // known only from the other direction: error unknown, never to be used
	Missing []string      // sensors with no live registration, sorted
	Peers   []sensor.Peer // every sensor the directory listed, stale ones too (their sites)
}

// PairLinks reads from the directory the latest figures between each
// sensor of names and target, both ways: Rows those measured or else
// estimated along the hierarchy (a pair with neither is left out),
// Reverse those known only from the other direction (never to be used),
// Missing, sorted, the sensors of names and target that have no live
// registration (never registered, or stale), which can have no figures,
// and Peers every sensor listed.
func PairLinks(ctx context.Context, c *directory.Client, target string, names []string) (Links, error) {
	ss, err := c.Sensors(ctx, "")
	if err != nil {
		return Links{}, fmt.Errorf("listing the sensors: %w", err)
	}
	rs, err := c.Results(ctx, directory.Query{Latest: true})
	if err != nil {
		return Links{}, fmt.Errorf("reading the results: %w", err)
	}
	peers := Peers(ss)
	out := Links{Missing: Missing(peers, append([]string{target}, names...)), Peers: peers}
	live := slices.DeleteFunc(slices.Clone(peers), func(p sensor.Peer) bool { return p.Stale })
	m := Measured(rs)
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	for _, n := range names {
		if n == target {
			continue
		}
		for _, p := range [][2]string{{n, target}, {target, n}} {
			l, ok := sensor.Estimate(m, live, p[0], p[1])
			switch {
			case !ok:
			case l.Usable():
				out.Rows = append(out.Rows, sensor.RowOf(p[0], p[1], l))
			default:
				out.Reverse = append(out.Reverse, sensor.RowOf(p[0], p[1], l))
			}
		}
	}
	return out, nil
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
