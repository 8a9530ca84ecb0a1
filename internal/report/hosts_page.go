package report

import (
	"slices"

	"github.com/diperf/diperf/internal/analyze"
)

// hostsSection is the page's section "Per host and per site": its
// graphs, the table of the hosts shown and that of the sites.
type hostsSection struct {
	Notes        []string
	Figures      []figure
	Hosts        []hostRow
	Sites        []hostRow
	Omitted      int // hosts not listed (nor graphed)
	SitesOmitted int // sites not listed
}

// hostRow is one row of the hosts' or the sites' table.
type hostRow struct {
	Rank, Name, Site                          string
	Hosts, Testers, OK, Failed                string
	PeakPerS, RunPerS, Median, Mean, P99      string
	Jain, JainHosts, Bandwidth, Back, Latency string
}

// hostsSectionOf is r's per-host and per-site view; nil for a run with
// no testers.
func hostsSectionOf(r *analyze.Result) *hostsSection {
	if len(r.Hosts) == 0 {
		return nil
	}
	shown, left := shownHosts(r.Hosts)
	s := &hostsSection{Omitted: left}
	s.Figures = hostFigures(r, shown, left)
	for _, h := range shown {
		s.Hosts = append(s.Hosts, hostRowOf(h.h, itoa(h.rank)))
	}
	for i := range r.Sites[:min(len(r.Sites), maxHostsShown)] {
		s.Sites = append(s.Sites, hostRowOf(&r.Sites[i], ""))
	}
	s.SitesOmitted = len(r.Sites) - len(s.Sites)
	if !slices.ContainsFunc(r.Hosts, func(h analyze.HostFigures) bool { return h.Net != nil && h.Net.Known() }) {
		s.Notes = append(s.Notes, "The sensor mesh gave no tester host a bandwidth or latency to the target (the "+
			"experiment key sensors; network.csv), so the hosts are not drawn against their network figures.")
	}
	if len(r.Sites) == 0 {
		s.Notes = append(s.Notes, "No tester host has a site (the sensors' --site, or the testbed): the hosts are not grouped by site.")
	}
	return s
}

// hostFigures are the section's graphs: (m) always, (m2) and (m3) when
// some host shown has the figure.
func hostFigures(r *analyze.Result, shown []rankedHost, left int) []figure {
	fs := []figure{newFigure(hostsChart(shown, left), hostsCaption(r, len(shown), left))}
	bwX, bwY, bwEst := netHosts(shown, func(n *analyze.NetLink) float64 { return n.BandwidthBps / 1e6 },
		func(h *analyze.HostFigures) float64 { return h.RunPerS })
	if len(bwX) > 0 {
		c := hostScatter(HostsBandwidthID, "Throughput per tester host against its bandwidth to the target",
			axis{title: "bandwidth to the target (Mbit/s, sensor mesh)", zero: true, pad: 0.08},
			axis{title: "throughput (successful calls/s over its testers' run)", zero: true, color: colThr, pad: 0.1},
			bwX, bwY, bwEst, colThr)
		fs = append(fs, newFigure(c, "Figure m2. Per tester host ("+itoa(len(bwX))+" with a bandwidth): its "+
			"throughput, the successful calls of its testers per second over their run, against its bandwidth to the "+
			"target as the sensor mesh gave it (network.csv). A service limited by the network gives the best "+
			"connected hosts the most calls."+estimatedNote(bwEst)))
	}
	ltX, ltY, ltEst := netHosts(shown, func(n *analyze.NetLink) float64 { return n.LatencyMs },
		func(h *analyze.HostFigures) float64 { return rtOrNaN(h.RT.Median, h) })
	if len(ltX) > 0 {
		c := hostScatter(HostsLatencyID, "Response time per tester host against its latency to the target",
			axis{title: "network latency to the target (ms, sensor mesh)", zero: true, pad: 0.08},
			axis{title: rtTitle(r, "median response time (ms)"), zero: true, color: colRT, pad: 0.1},
			ltX, ltY, ltEst, colRT)
		fs = append(fs, newFigure(c, "Figure m3. Per tester host ("+itoa(len(ltX))+" with a latency): the "+
			"median response time of its testers' successful calls against its network latency to the target as "+
			"the sensor mesh gave it (network.csv). Points on a rising line mean the response time is mostly the "+
			"network's round trips."+estimatedNote(ltEst)+openRTNote(r)))
	}
	return fs
}

// estimatedNote is the sentence a per-host scatter's caption ends with
// when some of its hosts' figures were estimated.
func estimatedNote(est []bool) string {
	if !slices.Contains(est, true) {
		return ""
	}
	return " Rings: figures estimated along the mesh's hierarchy, not measured directly."
}

// hostsCaption is the caption of graph (m), of n hosts drawn and left
// left out.
func hostsCaption(r *analyze.Result, n, left int) string {
	s := "Figure m. Per tester host, by its throughput (rank 1 the highest): the successful calls of its testers " +
		"per second over their run (bars) and in the peak window (dots; hosts with no tester running through the " +
		"whole window have none), and on the right axis the median (dots) and 99th percentile (×) response time " +
		"of their successful calls (the thesis's per-machine graphs). Hosts that got much less than the others, " +
		"with a fair share of testers, point at the network or the host, not the service. " + itoa(n) + " of " +
		itoa(len(r.Hosts)) + " hosts drawn"
	if left > 0 {
		s += ": the " + itoa(n/2) + " fastest and the " + itoa(n/2) + " slowest; " + itoa(left) + " in between are " +
			"left out of the graph and the table (hosts.csv has them all)"
	}
	return s + "." + openRTNote(r)
}

// hostRowOf renders h as a table row of rank rank ("" for a site).
func hostRowOf(h *analyze.HostFigures, rank string) hostRow {
	row := hostRow{Rank: rank, Name: clipRunes(h.Name, maxHostName), Site: clipRunes(h.Site, maxHostName),
		Hosts: itoa(h.Hosts), Testers: itoa(h.Testers), OK: itoa(h.OK), Failed: itoa(h.Failed),
		PeakPerS: "–", RunPerS: num(h.RunPerS), Median: "–", Mean: "–", P99: "–", Jain: "–", JainHosts: "–",
		Bandwidth: "–", Back: "–", Latency: "–"}
	if h.PeakTesters > 0 {
		row.PeakPerS, row.Jain = num(h.PeakPerS), num(h.Jain)
	}
	if h.RT.N > 0 {
		row.Median, row.Mean, row.P99 = num(h.RT.Median), num(h.RT.Mean), num(h.RT.P99)
	}
	if h.Level == analyze.LevelSite {
		row.JainHosts = num(h.JainHosts)
	}
	if n := h.Net; n != nil {
		row.Bandwidth, row.Back, row.Latency = posNum(n.BandwidthBps/1e6), posNum(n.FromTargetBps/1e6), posNum(n.LatencyMs)
	}
	return row
}

// posNum is num(v) for a positive v, "–" else (unknown).
func posNum(v float64) string {
	if v > 0 {
		return num(v)
	}
	return "–"
}

// hostsHTML is the page's section "Per host and per site".
const hostsHTML = `{{define "hosts"}}<h2 id="hosts">Per host and per site</h2>
{{range .Notes}}<p class="note hosts-note">{{.}}</p>
{{end}}{{range .Figures}}{{template "figure" .}}{{end}}<div class="wide"><table class="hosts" id="hosts-table">
<tr><th>Rank</th><th class="l">Host</th><th class="l">Site</th><th>Testers</th><th>OK</th><th>Failed</th><th>Calls/s (run)</th><th>Calls/s (peak)</th><th>Median RT (ms)</th><th>Mean RT (ms)</th><th>p99 RT (ms)</th><th>Jain (testers)</th><th>To target (Mbit/s)</th><th>From target (Mbit/s)</th><th>Latency (ms)</th></tr>
{{range .Hosts}}<tr><td>{{.Rank}}</td><td class="l">{{.Name}}</td><td class="l">{{.Site}}</td><td>{{.Testers}}</td><td>{{.OK}}</td><td>{{.Failed}}</td><td>{{.RunPerS}}</td><td>{{.PeakPerS}}</td><td>{{.Median}}</td><td>{{.Mean}}</td><td>{{.P99}}</td><td>{{.Jain}}</td><td>{{.Bandwidth}}</td><td>{{.Back}}</td><td>{{.Latency}}</td></tr>
{{end}}</table></div>
{{if .Omitted}}<p class="note">{{.Omitted}} more hosts, in the middle of the ranking, are not listed: hosts.csv has every host.</p>
{{end}}{{if .Sites}}<div class="wide"><table class="sites" id="sites-table">
<tr><th class="l">Site</th><th>Hosts</th><th>Testers</th><th>OK</th><th>Failed</th><th>Calls/s (run)</th><th>Calls/s (peak)</th><th>Median RT (ms)</th><th>Mean RT (ms)</th><th>p99 RT (ms)</th><th>Jain (testers)</th><th>Jain (across hosts)</th></tr>
{{range .Sites}}<tr><td class="l">{{.Name}}</td><td>{{.Hosts}}</td><td>{{.Testers}}</td><td>{{.OK}}</td><td>{{.Failed}}</td><td>{{.RunPerS}}</td><td>{{.PeakPerS}}</td><td>{{.Median}}</td><td>{{.Mean}}</td><td>{{.P99}}</td><td>{{.Jain}}</td><td>{{.JainHosts}}</td></tr>
{{end}}</table></div>
{{if .SitesOmitted}}<p class="note">{{.SitesOmitted}} more sites are not listed: hosts.csv has every site.</p>
{{end}}{{end}}<p class="note">Every host and site, with its network figures: <a href="hosts.csv">hosts.csv</a>, beside this page.</p>
{{end}}`

// addHosts sets the page's per-host section from r.
func (p *page) addHosts(r *analyze.Result) { p.Hosts = hostsSectionOf(r) }
