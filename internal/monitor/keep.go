package monitor

import (
	"path"
	"strings"
)

// MaxSeries bounds the series kept from one scrape of one endpoint: a page
// with more (a busy service's /metrics) keeps the first MaxSeries in
// metric and label order and counts the rest as dropped.
const MaxSeries = 500

// NodeDefaults are the metrics kept from a node_exporter-like page (one
// that has node_cpu_seconds_total) when the endpoint lists no metrics:
// what the report's server view draws (CPU, memory, network, processes,
// load).
var NodeDefaults = []string{
	"node_cpu_seconds_total", "node_memory_MemTotal_bytes", "node_memory_MemAvailable_bytes",
	"node_network_receive_bytes_total", "node_network_transmit_bytes_total",
	"node_procs_running", "node_procs_blocked", "node_processes_pids", "node_processes_threads", "node_load1",
}

// Keep chooses the series of one scrape to store: those whose metric
// matches one of globs (path.Match), or with no globs NodeDefaults for a
// node_exporter-like page and every series for any other; then at most
// MaxSeries. It returns the kept series and how many were dropped.
func Keep(all []Series, globs []string) (kept []Series, dropped int) {
	if len(globs) == 0 && nodeLike(all) {
		globs = NodeDefaults
	}
	for _, s := range all {
		if len(globs) > 0 && !matchAny(globs, s.Metric) {
			dropped++
			continue
		}
		if len(kept) == MaxSeries {
			dropped++
			continue
		}
		kept = append(kept, s)
	}
	return kept, dropped
}

// nodeLike reports whether a page looks like node_exporter's.
func nodeLike(all []Series) bool {
	for _, s := range all {
		if strings.HasPrefix(s.Metric, "node_cpu_seconds_total") {
			return true
		}
	}
	return false
}

// matchAny reports whether name matches one of globs.
func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
