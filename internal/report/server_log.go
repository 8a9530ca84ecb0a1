package report

import (
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/monitor"
)

// idServerLog is the element id of the server view's log graph.
const idServerLog = "graph-k-server-log"

// logEndpoints are the endpoints of r's monitor data that count log
// lines (format log: lines_total).
func logEndpoints(r *analyze.Result) []string {
	var out []string
	for _, e := range monitor.EndpointNames(r.Server) {
		if monitor.HasMetric(r.Server, e, monitor.LogLines) {
			out = append(out, e)
		}
	}
	return out
}

// logPanel is the graph of the log endpoints' matching lines per second
// against the clients' throughput (none without log endpoints).
func logPanel(r *analyze.Result, logs []string, client ServerLine) []ServerPanel {
	if len(logs) == 0 {
		return nil
	}
	p := ServerPanel{ID: idServerLog, Title: "Server log lines against throughput", Client: client}
	for _, e := range logs {
		p.Server = append(p.Server, rateLine(r, e, monitor.LogLines, e+": matching log lines", "lines/s"))
	}
	return []ServerPanel{p}
}
