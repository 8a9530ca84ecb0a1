package analyze

import (
	"io"
	"strconv"
)

// setHostNetwork gives every host of r its link in byHost (none: nil).
func (r *Result) setHostNetwork(byHost map[string]NetLink) {
	for i := range r.Hosts {
		if l, ok := byHost[r.Hosts[i].Name]; ok {
			r.Hosts[i].Net = &l
		}
	}
}

// hostsHeader is hosts.csv's header; the net_* columns of clients.csv
// (netHeader) follow it.
var hostsHeader = []string{"level", "name", "site", "hosts", "testers", "ok", "failed",
	"peak_testers", "peak_ok", "peak_calls_per_s", "run_s", "calls_per_s",
	"rt_median_ms", "rt_mean_ms", "rt_p99_ms", "jain_testers", "jain_hosts"}

// WriteHosts writes hosts.csv: a header, then one row per tester host
// (level host) and one per site (level site), each by name. Cells with
// no figure are empty: jain_testers with no tester in the peak window,
// jain_hosts on a host's row, the net_* cells where the sensor mesh gave
// none (always on a site's row).
func WriteHosts(w io.Writer, hosts, sites []HostFigures) error {
	header := append(hostsHeader[:len(hostsHeader):len(hostsHeader)], netHeader...)
	rows := make([][]string, 0, len(hosts)+len(sites))
	for _, hs := range [][]HostFigures{hosts, sites} {
		for i := range hs {
			rows = append(rows, hostCells(&hs[i]))
		}
	}
	return writeCSV(w, header, rows)
}

// hostCells renders h as a row of hosts.csv.
func hostCells(h *HostFigures) []string {
	it := strconv.Itoa
	jainT, jainH := "", ""
	if h.PeakTesters > 0 {
		jainT = ff(h.Jain)
	}
	if h.Level == LevelSite {
		jainH = ff(h.JainHosts)
	}
	row := []string{h.Level, h.Name, h.Site, it(h.Hosts), it(h.Testers), it(h.OK), it(h.Failed),
		it(h.PeakTesters), it(h.PeakOK), ff(h.PeakPerS), ff(h.RunS), ff(h.RunPerS),
		ff(h.RT.Median), ff(h.RT.Mean), ff(h.RT.P99), jainT, jainH}
	return append(row, netCells(Client{Net: h.Net})...)
}

// siteColumn appends clients.csv's site column to header and rows when
// any client of cs has a site.
func siteColumn(cs []Client, header []string, rows [][]string) ([]string, [][]string) {
	some := false
	for i := range cs {
		some = some || cs[i].Site != ""
	}
	if !some {
		return header, rows
	}
	for i, r := range rows {
		rows[i] = append(r, cs[i].Site)
	}
	return append(header[:len(header):len(header)], "site"), rows
}
