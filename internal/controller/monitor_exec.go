package controller

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/testbed"
)

// monitorExec is how log and command endpoints run their commands: on
// this machine for host "", else over ssh with the testbed's user,
// identity_file, known_hosts and trust_new_hosts (their defaults when the
// testbed is not ssh). closeExec ends the ssh connections.
func monitorExec(tb experiment.Testbed) (exec monitor.Exec, closeExec func() error) {
	remote := testbed.NewSSHExec(tb)
	exec = func(ctx context.Context, host string, argv []string) (io.ReadCloser, error) {
		if host == "" {
			return monitor.LocalExec(ctx, host, argv)
		}
		return remote.Exec(ctx, host, argv)
	}
	return exec, remote.Close
}

// logCounts says, for each log endpoint that left lines out, how many
// and why: "; NAME: N lines refused (too_long 2, ...), N late, ...".
func logCounts(s *monitor.Scraper) string {
	totals := s.LogTotals()
	names := make([]string, 0, len(totals))
	for k := range totals {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		t := totals[k]
		var parts []string
		reasons := make([]string, 0, len(t.Refused))
		for r, n := range t.Refused {
			reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(reasons)
		if len(reasons) > 0 {
			parts = append(parts, "lines refused ("+strings.Join(reasons, ", ")+")")
		}
		for _, x := range []struct {
			n    int
			what string
		}{{t.Late, "lines late"}, {t.BadValues, "values refused"}, {t.Capped, "intervals read only to the cap"}} {
			if x.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "; %s: %s", k, strings.Join(parts, ", "))
		}
	}
	return b.String()
}
