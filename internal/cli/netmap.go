package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/sensor"
)

// meshFlags reach the directory: its URL and the mesh's token.
type meshFlags struct{ dir, tokenFile string }

func (m *meshFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&m.dir, "directory", "", "the directory's URL (http[s]://HOST:PORT)")
	fs.StringVar(&m.tokenFile, "token-file", defaultMeshToken(), tokenFileUsage)
}

// client opens the directory client.
func (m *meshFlags) client() (*directory.Client, error) {
	if m.dir == "" {
		return nil, errs.Usagef("--directory is required")
	}
	if m.tokenFile == "" {
		return nil, errs.Usagef("--token-file is required (no default: neither $DIPERF_TOKEN_FILE nor a config directory)")
	}
	token, err := readPrivateSecret("--token-file", m.tokenFile)
	if err != nil {
		return nil, err
	}
	c, err := directory.NewClient(m.dir, token, nil)
	if err != nil {
		return nil, errs.Usage(err, "give --directory the directory's URL")
	}
	return c, nil
}

// netmapCmd is `diperf netmap`: the latest bandwidth and latency between
// the live sensors, measured or estimated along the hierarchy, as a matrix
// on the terminal, JSON rows, or an SVG heat map.
func netmapCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "netmap", "--directory URL [--token-file F] [--json] [--svg FILE]")
	var m meshFlags
	m.add(fs)
	asJSON := fs.Bool("json", false, "print the rows as JSON (src, dst, bandwidth_bps, latency_ms, measured_at, estimated, via)")
	svg := fs.String("svg", "", "also draw the bandwidths as a heat map into this SVG file")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	c, err := m.client()
	if err != nil {
		return err
	}
	rows, err := meshMap(ctx, c)
	if err != nil {
		return err
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, sensor.HeatMapSVG(rows), 0o644); err != nil {
			return err
		}
	}
	if *asJSON {
		if rows == nil {
			rows = []sensor.Row{}
		}
		return printJSON(e, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no pair measured yet")
		return nil
	}
	return sensor.WriteTable(e.stdout, rows)
}

// meshMap reads the sensors and the latest result of each pair and kind
// from the directory and makes the map.
func meshMap(ctx context.Context, c *directory.Client) ([]sensor.Row, error) {
	ss, err := c.Sensors(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("netmap: %w", err)
	}
	rs, err := c.Results(ctx, directory.Query{Latest: true})
	if err != nil {
		return nil, fmt.Errorf("netmap: %w", err)
	}
	return sensor.Map(measuredOf(rs), peersOf(ss)), nil
}

// measuredOf folds the latest bandwidth and latency results of each pair
// into one link (a pair with a latency but no bandwidth result is left
// out: the map is of bandwidths first).
func measuredOf(rs []directory.Result) sensor.Measured {
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

// peersOf turns the directory's sensors into peers, the site taken from
// its "site:NAME" group.
func peersOf(ss []directory.Sensor) []sensor.Peer {
	peers := make([]sensor.Peer, 0, len(ss))
	for _, s := range ss {
		p := sensor.Peer{Name: s.Name, Addr: s.Address, Version: s.Version, Stale: s.State == directory.StateStale}
		for _, g := range s.Groups {
			if site, ok := strings.CutPrefix(g, sitePrefix); ok {
				p.Site = site
			} else {
				p.Groups = append(p.Groups, g)
			}
		}
		peers = append(peers, p)
	}
	return peers
}
