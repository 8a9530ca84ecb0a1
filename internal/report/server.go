package report

import (
	"strings"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/monitor"
)

// ServerLine is one line of the server view: x in s since the run's
// origin (like the timeline), y in Unit.
type ServerLine struct {
	Name string
	Unit string
	X, Y []float64
}

// ServerPanel is one graph of the server view: server quantities of the
// monitored hosts against the client view (throughput) on the same time
// axis.
type ServerPanel struct {
	ID     string       // element id, and graph file name without .svg
	Title  string       // what the panel shows
	Server []ServerLine // one per node_exporter-like endpoint (and per direction for network)
	Client ServerLine   // the clients' throughput, per quantum
}

// ServerView is the thesis' server view (§4.5): CPU utilization, memory
// used, network in and out, process count, each against the client
// view. It is plain data so that the SVG graphs and interactive charts
// draw the same series.
type ServerView struct {
	Panels []ServerPanel
}

// Element ids of the server-view graphs (k).
const (
	idServerCPU       = "graph-k-server-cpu"
	idServerMemory    = "graph-k-server-memory"
	idServerNetwork   = "graph-k-server-network"
	idServerProcesses = "graph-k-server-processes"
)

// ServerViewOf computes r's server view from the node_exporter-like
// endpoints of its monitor data (those with node_cpu_seconds_total); nil
// when there are none. Rates (CPU, network) are drawn at the middle of
// each interval between two successful scrapes; levels at each scrape.
// Network sums every interface, loopback included (a service reached on
// loopback moves its bytes there).
func ServerViewOf(r *analyze.Result) *ServerView {
	var nodes []string
	for _, e := range monitor.EndpointNames(r.Server) {
		if monitor.HasMetric(r.Server, e, "node_cpu_seconds_total") {
			nodes = append(nodes, e)
		}
	}
	logs := logEndpoints(r)
	if len(nodes) == 0 && len(logs) == 0 {
		return nil
	}
	client := throughputLine(r)
	v := &ServerView{}
	defer func() { v.Panels = append(v.Panels, logPanel(r, logs, client)...) }() // after the node panels
	if len(nodes) == 0 {
		return v
	}
	add := func(id, title string, lines func(e string) []ServerLine) {
		p := ServerPanel{ID: id, Title: title, Client: client}
		for _, e := range nodes {
			p.Server = append(p.Server, lines(e)...)
		}
		v.Panels = append(v.Panels, p)
	}
	add(idServerCPU, "Server CPU utilization against throughput", func(e string) []ServerLine { return []ServerLine{cpuLine(r, e)} })
	add(idServerMemory, "Server memory used against throughput", func(e string) []ServerLine { return []ServerLine{memoryLine(r, e)} })
	add(idServerNetwork, "Server network in and out against throughput", func(e string) []ServerLine {
		return []ServerLine{
			rateLine(r, e, "node_network_receive_bytes_total", e+": network in", "bytes/s"),
			rateLine(r, e, "node_network_transmit_bytes_total", e+": network out", "bytes/s"),
		}
	})
	add(idServerProcesses, "Server process count against throughput", func(e string) []ServerLine { return []ServerLine{processLine(r, e)} })
	return v
}

// throughputLine is the clients' throughput at the middle of each quantum.
func throughputLine(r *analyze.Result) ServerLine {
	l := ServerLine{Name: "throughput (client view)", Unit: "calls/s"}
	for _, q := range r.Quanta {
		l.X = append(l.X, q.T+r.Summary.QuantumS/2)
		l.Y = append(l.Y, q.Throughput)
	}
	return l
}

// secs is Unix ns t as s since r's origin.
func secs(r *analyze.Result, t int64) float64 { return float64(t-r.Origin) / 1e9 }

// mid is the middle of an increase's interval, s since r's origin.
func mid(r *analyze.Result, in monitor.Increase) float64 {
	return secs(r, in.FromNs+(in.ToNs-in.FromNs)/2)
}

// cpuLine is endpoint e's CPU utilization: 100 × (1 − (idle + iowait) /
// all) of the CPU seconds between two scrapes, over every CPU.
func cpuLine(r *analyze.Result, e string) ServerLine {
	l := ServerLine{Name: e + ": CPU utilization", Unit: "%"}
	all := monitor.Increases(r.Server, e, "node_cpu_seconds_total", nil)
	idle := monitor.Increases(r.Server, e, "node_cpu_seconds_total", func(lb string) bool {
		m := monitor.LabelValue(lb, "mode")
		return m == "idle" || m == "iowait"
	})
	for i, in := range all {
		if i >= len(idle) || in.Value <= 0 {
			continue
		}
		l.X = append(l.X, mid(r, in))
		l.Y = append(l.Y, 100*(1-idle[i].Value/in.Value))
	}
	return l
}

// memoryLine is endpoint e's memory used, MemTotal − MemAvailable, in MB.
func memoryLine(r *analyze.Result, e string) ServerLine {
	l := ServerLine{Name: e + ": memory used", Unit: "MB"}
	avail := map[int64]float64{}
	for _, a := range monitor.Levels(r.Server, e, "node_memory_MemAvailable_bytes", nil) {
		avail[a.TimeNs] = a.Value
	}
	for _, t := range monitor.Levels(r.Server, e, "node_memory_MemTotal_bytes", nil) {
		if a, ok := avail[t.TimeNs]; ok {
			l.X = append(l.X, secs(r, t.TimeNs))
			l.Y = append(l.Y, (t.Value-a)/1e6)
		}
	}
	return l
}

// rateLine is counter metric's rate per second on endpoint e, summed over
// its label sets.
func rateLine(r *analyze.Result, e, metric, name, unit string) ServerLine {
	l := ServerLine{Name: name, Unit: unit}
	for _, in := range monitor.Increases(r.Server, e, metric, nil) {
		if d := float64(in.ToNs-in.FromNs) / 1e9; d > 0 {
			l.X = append(l.X, mid(r, in))
			l.Y = append(l.Y, in.Value/d)
		}
	}
	return l
}

// processLine is endpoint e's process count: node_processes_pids when the
// page has it (node_exporter's processes collector, diperf monitor),
// else the processes running and blocked.
func processLine(r *analyze.Result, e string) ServerLine {
	l := ServerLine{Name: e + ": processes", Unit: "processes"}
	lv := monitor.Levels(r.Server, e, "node_processes_pids", nil)
	if len(lv) == 0 {
		l.Name = e + ": processes running or blocked"
		lv = monitor.Levels(r.Server, e, "node_procs_running", nil)
		blocked := map[int64]float64{}
		for _, b := range monitor.Levels(r.Server, e, "node_procs_blocked", nil) {
			blocked[b.TimeNs] = b.Value
		}
		for i := range lv {
			lv[i].Value += blocked[lv[i].TimeNs]
		}
	}
	for _, p := range lv {
		l.X = append(l.X, secs(r, p.TimeNs))
		l.Y = append(l.Y, p.Value)
	}
	return l
}

// serverCaption is the caption of one server-view graph.
func serverCaption(p ServerPanel, letter string) string {
	what := map[string]string{
		idServerCPU: "CPU utilization of the monitored host (100 × the share of CPU time not idle nor waiting for I/O " +
			"between two scrapes, all CPUs together)",
		idServerMemory:  "memory used on the monitored host (MemTotal − MemAvailable, MB)",
		idServerNetwork: "bytes per second received and sent by the monitored host, every interface (loopback included) together",
		idServerProcesses: "process count of the monitored host (node_processes_pids, or the processes running and " +
			"blocked when the page has no process collector)",
		idServerLog: "lines per second of the service's log that match the endpoint's pattern (lines_total of a log " +
			"endpoint: by each line's own stamp when it has one, else by when it was read)",
	}[p.ID]
	names := make([]string, 0, len(p.Server))
	for _, s := range p.Server {
		names = append(names, s.Name)
	}
	return "Figure " + letter + ". Server view (thesis §4.5): " + what + " on the left axis, against the clients' " +
		"throughput (successful calls/s per quantum) on the right, on the timeline's axis (s since the first tester " +
		"started; negative: scrapes before it). Scraped by the run's monitor (experiment key monitor, monitor.csv) " +
		"on the controller's clock; lines: " + strings.Join(names, ", ") + "."
}
