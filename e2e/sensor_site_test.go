package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/report"
)

// checkHostView checks, in run directory out whose testers all ran on
// host, that testers.csv and clients.csv carry site (the site its sensor
// registered; "" none), that hosts.csv sums the host's testers (and its
// site's, when it has one) and that the report has the section "Per host
// and per site" with graph (m), and graph (m3) when withNet.
func checkHostView(t *testing.T, out, host, site string, withNet bool) {
	t.Helper()
	for _, r := range readCSV(t, filepath.Join(out, "testers.csv"), "host", "site").rows {
		if r.str(t, "site") != site {
			t.Errorf("testers.csv line %d: site %q, want %q", r.line, r.str(t, "site"), site)
		}
	}
	cl := readCSV(t, filepath.Join(out, "clients.csv"), "ok")
	ok := 0
	for _, r := range cl.rows {
		ok += r.int(t, "ok")
		if site != "" && r.str(t, "site") != site {
			t.Errorf("clients.csv line %d: site %q, want %q", r.line, r.str(t, "site"), site)
		}
	}
	if site == "" && cl.has("site") {
		t.Error("clients.csv has a site column though no tester has a site")
	}
	hs := readCSV(t, filepath.Join(out, "hosts.csv"), "level", "name", "site", "hosts", "testers", "ok", "net_latency_ms")
	want := []string{"host " + host + " " + site + " 1 " + itoa(len(cl.rows)) + " " + itoa(ok)}
	if site != "" {
		want = append(want, "site "+site+" "+site+" 1 "+itoa(len(cl.rows))+" "+itoa(ok))
	}
	var got []string
	for _, r := range hs.rows {
		got = append(got, strings.Join([]string{r.str(t, "level"), r.str(t, "name"), r.str(t, "site"), r.str(t, "hosts"),
			r.str(t, "testers"), r.str(t, "ok")}, " "))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hosts.csv rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if lat := hs.rows[0].str(t, "net_latency_ms"); (lat != "") != withNet {
		t.Errorf("hosts.csv: host %s's latency %q (want one: %v)", host, lat, withNet)
	}
	page := reportGraph(t, out, report.HostsGraphID)
	if !strings.Contains(page, "Per host and per site") || !strings.Contains(page, "one host: nothing to compare it with") {
		t.Error("report.html has no section Per host and per site saying its one host has nothing to compare")
	}
	if withNet {
		reportGraph(t, out, report.HostsLatencyID)
	}
}
