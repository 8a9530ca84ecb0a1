package monitor

import (
	"container/heap"
	"path"
	"sort"
	"strings"
)

// MaxSeries is the default bound of the series kept from one scrape of
// one endpoint (an endpoint's max_series sets its own): a page with more
// (a busy service's /metrics) keeps the first MaxSeries in metric and
// label order and counts the rest as dropped.
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

// nodeDefault is NodeDefaults as a set.
var nodeDefault = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range NodeDefaults {
		m[n] = true
	}
	return m
}()

// Keep chooses the series of one scrape to store: those whose metric
// matches one of globs (path.Match), or with no globs NodeDefaults for a
// node_exporter-like page and every series for any other; then at most
// MaxSeries. It returns the kept series, in metric and label order, and
// how many were dropped.
func Keep(all []Series, globs []string) (kept []Series, dropped int) {
	k := newKeeper(globs, MaxSeries)
	for _, s := range all {
		k.add(s)
	}
	return k.result()
}

// keeper chooses, as a page's series come one by one, those to store (as
// Keep does), holding at most twice its bound of them whatever the size
// of the page: those of the page so far that come first in metric and
// label order, and with no globs the same of NodeDefaults' (the page is
// known to be node_exporter-like only once its node_cpu_seconds_total
// has come).
type keeper struct {
	globs     []string
	nodeLike  bool
	seen      int
	all, node bounded
}

// newKeeper keeps at most max series (at least 1) of those globs choose.
func newKeeper(globs []string, limit int) *keeper {
	limit = max(limit, 1)
	return &keeper{globs: globs, all: bounded{max: limit}, node: bounded{max: limit}}
}

// add offers one series of the page.
func (k *keeper) add(s Series) {
	k.seen++
	if len(k.globs) > 0 {
		if matchAny(k.globs, s.Metric) {
			k.all.offer(s)
		}
		return
	}
	k.all.offer(s)
	if nodeDefault[s.Metric] {
		k.node.offer(s)
	}
	if strings.HasPrefix(s.Metric, "node_cpu_seconds_total") {
		k.nodeLike = true
	}
}

// result is the series kept, in metric and label order, and how many of
// those offered were dropped.
func (k *keeper) result() ([]Series, int) {
	b := &k.all
	if len(k.globs) == 0 && k.nodeLike {
		b = &k.node
	}
	kept := append([]Series(nil), b.h...)
	sort.Slice(kept, func(i, j int) bool { return before(kept[i], kept[j]) })
	return kept, k.seen - len(kept)
}

// MaxKeptBytes bounds the bytes of the series kept from one scrape
// (names, labels, and seriesOverhead each), whatever their number: a
// page of long label values keeps fewer series.
const MaxKeptBytes = 4 << 20

// seriesOverhead is what a kept series costs beside its text.
const seriesOverhead = 64

// bounded holds the max series that come first in metric and label order
// of those offered, within MaxKeptBytes.
type bounded struct {
	max   int
	bytes int
	h     seriesHeap
}

func (b *bounded) offer(s Series) {
	switch {
	case len(b.h) < b.max:
		heap.Push(&b.h, s)
		b.bytes += size(s)
	case before(s, b.h[0]):
		b.bytes += size(s) - size(b.h[0])
		b.h[0] = s
		heap.Fix(&b.h, 0)
	}
	for b.bytes > MaxKeptBytes {
		b.bytes -= size(heap.Pop(&b.h).(Series))
	}
}

// size is what keeping s costs.
func size(s Series) int { return len(s.Metric) + len(s.Labels) + seriesOverhead }

// before orders series by metric, then labels.
func before(a, b Series) bool {
	if a.Metric != b.Metric {
		return a.Metric < b.Metric
	}
	return a.Labels < b.Labels
}

// seriesHeap has the last series in order on top.
type seriesHeap []Series

func (h seriesHeap) Len() int           { return len(h) }
func (h seriesHeap) Less(i, j int) bool { return before(h[j], h[i]) }
func (h seriesHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *seriesHeap) Push(x any)        { *h = append(*h, x.(Series)) }
func (h *seriesHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
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
