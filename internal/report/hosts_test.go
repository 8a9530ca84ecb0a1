package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// withHosts is smallResult with n tester hosts: host i made 10·(i+1)
// calls/s with a median response time of 100/(i+1) ms, the first
// withNet of them with a link to the target (the second estimated), the
// even ones in site "s<i%3>".
func withHosts(n, withNet int) *analyze.Result {
	r := smallResult()
	r.Hosts = make([]analyze.HostFigures, n)
	for i := range r.Hosts {
		h := analyze.HostFigures{Level: analyze.LevelHost, Name: fmt.Sprintf("host-%07d", i), Hosts: 1, Testers: 2,
			OK: 80 * (i + 1), PeakTesters: 2, PeakOK: 40 * (i + 1), PeakPerS: 10 * float64(i+1), RunS: 8,
			RunPerS: 10 * float64(i+1), Jain: 1,
			RT: analyze.RTStats{N: 80 * (i + 1), Median: 100 / float64(i+1), Mean: 110 / float64(i+1), P99: 200 / float64(i+1)}}
		if i%2 == 0 {
			h.Site = fmt.Sprintf("s%d", i%3)
		}
		if i < withNet {
			h.Net = &analyze.NetLink{BandwidthBps: 1e6 * float64(i+1), LatencyMs: 50 / float64(i+1), Estimated: i == 1}
		}
		r.Hosts[i] = h
	}
	return r
}

var (
	hostsSectionRE = regexp.MustCompile(`(?s)<h2 id="hosts">Per host and per site</h2>.*?<h2>Testers</h2>`)
	hostsRowRE     = regexp.MustCompile(`(?s)<table class="hosts" id="hosts-table">(.*?)</table>`)
	barsRE         = regexp.MustCompile(`<g fill="` + colThr + `" fill-opacity="0.4">(.*?)</g>`)
)

// hostsPart returns the page's section "Per host and per site", failing
// the test without one.
func hostsPart(t *testing.T, page string) string {
	t.Helper()
	s := hostsSectionRE.FindString(page)
	if s == "" {
		t.Fatal("the page has no section Per host and per site before the testers' table")
	}
	return s
}

// The section has graph (m), one bar per host, sorted by throughput,
// and a table row per host; with network figures, (m2) and (m3) with a
// point per host that has the figure.
func TestHostsSection(t *testing.T) {
	t.Parallel()
	r := withHosts(5, 3)
	sec := hostsPart(t, render(t, r))
	figs := figureRE.FindAllStringSubmatch(sec, -1)
	var ids []string
	for _, f := range figs {
		ids = append(ids, f[1])
		checkXML(t, f[2])
	}
	if strings.Join(ids, " ") != HostsGraphID+" "+HostsBandwidthID+" "+HostsLatencyID {
		t.Fatalf("section's figures %v", ids)
	}
	if n := strings.Count(barsRE.FindStringSubmatch(figs[0][2])[1], "<rect "); n != 5 {
		t.Errorf("graph (m) has %d bars, want one per host (5)", n)
	}
	rows := strings.Count(hostsRowRE.FindStringSubmatch(sec)[1], "<tr><td>")
	if rows != 5 {
		t.Errorf("the hosts' table has %d rows, want 5", rows)
	}
	if i, j := strings.Index(sec, "host-0000004"), strings.Index(sec, "host-0000000"); i < 0 || j < i {
		t.Error("the hosts are not listed fastest first")
	}
	c := hostsChart(shownHosts(r.Hosts))
	if c.series[0].y[0] != 50 || c.series[0].y[4] != 10 || c.x.labels[0] != "host-0000004" {
		t.Errorf("graph (m) bars %v, labels %v: want the fastest host first", c.series[0].y, c.x.labels)
	}
	if !strings.Contains(figs[1][3], "(3 with a bandwidth)") || !strings.Contains(figs[2][3], "Rings: figures estimated") {
		t.Errorf("captions %q / %q", figs[1][3], figs[2][3])
	}
}

// One host: the table still lists it, and its graph says there is
// nothing to compare it with; no network figures and no site are said.
func TestHostsSectionOneHost(t *testing.T) {
	t.Parallel()
	r := withHosts(1, 0)
	r.Hosts[0].Site = ""
	sec := hostsPart(t, render(t, r))
	if !strings.Contains(sec, noComparisonSingle) || strings.Count(sec, "<figure ") != 1 {
		t.Error("a run of one host: want graph (m) alone, saying there is nothing to compare")
	}
	if strings.Count(hostsRowRE.FindStringSubmatch(sec)[1], "<tr><td>") != 1 {
		t.Error("a run of one host lists no host")
	}
	for _, note := range []string{"gave no tester host a bandwidth or latency", "No tester host has a site"} {
		if !strings.Contains(sec, note) {
			t.Errorf("the section does not say %q", note)
		}
	}
	if noHosts := smallResult(); strings.Contains(render(t, noHosts), `id="hosts"`) {
		t.Error("a result without hosts has the section")
	}
}

// A run of 100,000 hosts (testers.csv may hold any number) draws and
// lists maxHostsShown of them, the fastest and the slowest, and says how
// many were left out; the page stays small.
func TestHostsSectionCapped(t *testing.T) {
	t.Parallel()
	const n = 100_000
	r := withHosts(n, n)
	page := render(t, r)
	sec := hostsPart(t, page)
	left := fmt.Sprint(n - maxHostsShown)
	if !strings.Contains(sec, left+" more hosts, in the middle of the ranking, are not listed") ||
		!strings.Contains(sec, left+" in between are left out") {
		t.Error("the section does not say how many hosts it left out")
	}
	if rows := strings.Count(hostsRowRE.FindStringSubmatch(sec)[1], "<tr><td>"); rows != maxHostsShown {
		t.Errorf("%d rows, want %d", rows, maxHostsShown)
	}
	if !strings.Contains(sec, "host-0099999") || !strings.Contains(sec, "host-0000000") || strings.Contains(sec, "host-0050000") {
		t.Error("want the fastest and slowest hosts shown, not the middle")
	}
	c := hostsChart(shownHosts(r.Hosts))
	if len(c.series[0].x) != maxHostsShown || len(c.rules) != 1 || c.x.labels[0] != "1" || !strings.Contains(c.x.title, "hosts 31 to 99970 left out") {
		t.Errorf("graph (m) of %d hosts: %d bars, rules %v, labels %v, title %q", n, len(c.series[0].x), c.rules, c.x.labels, c.x.title)
	}
	if len(page) > 2<<20 {
		t.Errorf("page of %d bytes for %d hosts", len(page), n)
	}
}

// Host and site names are escaped and cut in the page.
func TestHostsSectionEscapes(t *testing.T) {
	t.Parallel()
	r := withHosts(2, 0)
	r.Hosts[0].Name = "<script>alert(1)</script>" + strings.Repeat("x", 500)
	r.Hosts[0].Site = "<b>site</b>"
	sec := hostsPart(t, render(t, r))
	if strings.Contains(sec, "<script>") || strings.Contains(sec, "<b>site") || strings.Contains(sec, strings.Repeat("x", maxHostName)) {
		t.Error("a host's or site's name reaches the page unescaped or uncut")
	}
}
