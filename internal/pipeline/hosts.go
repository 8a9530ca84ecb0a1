package pipeline

import (
	"fmt"
	"io"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
)

// writeHosts writes hosts.csv of res: its per-host and per-site figures
// (none when the run had no testers: no file).
func writeHosts(dir string, res *analyze.Result) error {
	if len(res.Hosts) == 0 {
		return rundir.Remove(dir, rundir.Hosts)
	}
	return rundir.WriteFile(dir, rundir.Hosts, func(w io.Writer) error {
		return analyze.WriteHosts(w, res.Hosts, res.Sites)
	})
}

// sayRefusedSites says on progress how many testers' sites testers.csv
// held that were refused (rundir.CheckSite), and why the first was:
// those testers are analyzed with no site.
func (d *Dataset) sayRefusedSites(testers []*rundir.TesterRecord) {
	n, first := 0, ""
	for _, t := range testers {
		if t.SiteRefused != "" {
			if n++; n == 1 {
				first = t.SiteRefused
			}
		}
	}
	if n > 0 && d.progress != nil {
		fmt.Fprintf(d.progress, "%s: the site of %d testers was refused and left empty (the first: %s)\n", rundir.Testers, n, first)
	}
}
