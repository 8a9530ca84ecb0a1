package report

import (
	"slices"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/monitor"
)

// idServerCounters is the element id of the server view's counter graph.
const idServerCounters = "graph-k-server-counters"

// maxCounterSeries is the most series an endpoint may have for its
// counters to be drawn: a command's named counters or a page its globs cut
// down, not a whole /metrics page.
const maxCounterSeries = 8

// counterPanel is the graph of the small endpoints' counters (format
// command's, a filtered page's: unlabelled series that never fell and
// rose at least once) as rates per second against the clients'
// throughput; none when no endpoint has one. skip are the endpoints drawn
// elsewhere (node-like, log).
func counterPanel(r *analyze.Result, skip []string, client ServerLine) []ServerPanel {
	p := ServerPanel{ID: idServerCounters, Title: "Server counters against throughput", Client: client}
	for _, e := range monitor.EndpointNames(r.Server) {
		if slices.Contains(skip, e) {
			continue
		}
		for _, m := range counters(r.Server, e) {
			if l := rateLine(r, e, m, e+": "+m, "per s"); len(l.Y) > 0 {
				p.Server = append(p.Server, l)
			}
		}
	}
	if len(p.Server) == 0 {
		return nil
	}
	return []ServerPanel{p}
}

// counters are endpoint e's unlabelled series that never fell between two
// scrapes and rose at least once, when it has at most maxCounterSeries
// series besides the scraper's own.
func counters(pts []monitor.Point, e string) []string {
	last := map[string]float64{}
	rose, fell := map[string]bool{}, map[string]bool{}
	labelled := map[string]bool{}
	for _, p := range pts {
		if p.Endpoint != e || p.Metric == monitor.Up || p.Metric == monitor.ScrapeDuration || p.Metric == monitor.SeriesDropped {
			continue
		}
		if p.Labels != "" {
			labelled[p.Metric] = true
			continue
		}
		if v, ok := last[p.Metric]; ok {
			rose[p.Metric] = rose[p.Metric] || p.Value > v
			fell[p.Metric] = fell[p.Metric] || p.Value < v
		}
		last[p.Metric] = p.Value
	}
	if len(last)+len(labelled) > maxCounterSeries {
		return nil
	}
	var out []string
	for m := range last {
		if rose[m] && !fell[m] && !labelled[m] {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}
