package analyze

import (
	"strconv"
	"time"
)

// NetLink is what the sensor mesh measured between a tester's host and
// the target (the experiment key sensors; thesis Fig. 46), each figure
// zero when unknown.
type NetLink struct {
	BandwidthBps  float64   // host → target, bit/s
	FromTargetBps float64   // target → host, bit/s
	LatencyMs     float64   // round trip between them, ms
	Estimated     bool      // a figure was estimated along the mesh's hierarchy, not measured
	MeasuredAt    time.Time // when the host → target figure was measured (else the other one)
}

// Known reports whether the mesh had any figure for the link.
func (n NetLink) Known() bool { return n.BandwidthBps > 0 || n.FromTargetBps > 0 || n.LatencyMs > 0 }

// SetNetwork gives every client row of r (per tester and per client) the
// link of its host in byHost, an empty one when the host has none, so that
// clients.csv carries the net_* columns.
func (r *Result) SetNetwork(byHost map[string]NetLink) {
	for _, cs := range [][]Client{r.Clients, r.PerClient} {
		for i := range cs {
			l := byHost[cs[i].Host]
			cs[i].Net = &l
		}
	}
	r.setHostNetwork(byHost)
}

// netHeader is the part of clients.csv's header a run with the sensors
// key adds.
var netHeader = []string{"net_bandwidth_bps", "net_bandwidth_from_target_bps", "net_latency_ms", "net_estimated", "net_measured_at"}

// hasNet reports whether any row of cs carries a link.
func hasNet(cs []Client) bool {
	for _, c := range cs {
		if c.Net != nil {
			return true
		}
	}
	return false
}

// netCells renders c's link as clients.csv's net_* cells, empty where
// unknown.
func netCells(c Client) []string {
	cells := make([]string, len(netHeader))
	n := c.Net
	if n == nil || !n.Known() {
		return cells
	}
	pos := func(v float64, prec int) string {
		if v <= 0 {
			return ""
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	cells[0], cells[1], cells[2] = pos(n.BandwidthBps, 0), pos(n.FromTargetBps, 0), pos(n.LatencyMs, -1)
	cells[3] = strconv.FormatBool(n.Estimated)
	if !n.MeasuredAt.IsZero() {
		cells[4] = n.MeasuredAt.UTC().Format(time.RFC3339)
	}
	return cells
}
