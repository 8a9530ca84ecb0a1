package cli

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/sensor"
)

// meshFlags reach the directory: its URL and the mesh's token.
type meshFlags struct{ dir, tokenFile, caFile string }

func (m *meshFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&m.dir, "directory", "", "the directory's URL (http[s]://HOST:PORT)")
	fs.StringVar(&m.tokenFile, "token-file", defaultMeshToken(), tokenFileUsage)
	fs.StringVar(&m.caFile, "ca-file", "", caFileUsage)
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
	return directoryClient(m.dir, token, m.caFile)
}

// netmapCmd is `diperf netmap`: the latest bandwidth and latency between
// the live sensors, measured or estimated along the hierarchy, as a matrix
// on the terminal, JSON rows, or an SVG heat map.
func netmapCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "netmap", "--directory URL [--token-file F] [--json] [--svg FILE]")
	var m meshFlags
	m.add(fs)
	asJSON := fs.Bool("json", false, "print the rows as JSON (src, dst, bandwidth_bps, latency_ms, measured_at, estimated, via, basis)")
	svg := fs.String("svg", "", "also draw the bandwidths as a heat map into this SVG file")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	c, err := m.client()
	if err != nil {
		return err
	}
	rows, err := netmap.Fetch(ctx, c)
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
