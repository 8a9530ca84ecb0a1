package report

import (
	"cmp"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
)

// NetworkGraphID is the element id of the network bubble chart, graph
// (j), which a report has only when the sensor mesh gave some tester host
// both a latency and a bandwidth to the target (the experiment key
// sensors); it is also written beside the report as an .svg file.
const NetworkGraphID = idNetwork

// idNetwork is the element id of graph (j).
const idNetwork = "graph-j-network"

// hostLink is one tester host of graph (j): its link to the target and
// the successful calls of all its testers.
type hostLink struct {
	host string
	net  analyze.NetLink
	ok   int
}

// hostLinks returns, by host name, the hosts of r whose link has both a
// latency and a bandwidth to the target, with their testers' successful
// calls summed.
func hostLinks(r *analyze.Result) []hostLink {
	by := map[string]*hostLink{}
	var out []hostLink
	for _, c := range r.Clients {
		if c.Net == nil || c.Net.LatencyMs <= 0 || c.Net.BandwidthBps <= 0 {
			continue
		}
		h := by[c.Host]
		if h == nil {
			h = &hostLink{host: c.Host, net: *c.Net}
			by[c.Host] = h
		}
		h.ok += c.Whole.OK
	}
	for _, h := range by {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b hostLink) int { return cmp.Compare(a.host, b.host) })
	return out
}

// hasNetwork reports whether r has graph (j).
func hasNetwork(r *analyze.Result) bool { return len(hostLinks(r)) > 0 }

// networkChart is thesis Fig. 46: per tester host, its bandwidth to the
// target against its latency to it, as the sensor mesh measured them;
// bubble area is the successful calls of its testers. Hosts whose figures
// were estimated along the mesh's hierarchy are rings.
func networkChart(r *analyze.Result) *chart {
	hs := hostLinks(r)
	bs := make([]bubble, len(hs))
	for i, h := range hs {
		bs[i] = bubble{x: h.net.LatencyMs, y: h.net.BandwidthBps / 1e6, size: float64(h.ok)}
	}
	radius := bubbleRadii(bs, chartW-90)
	measured := series{name: "tester host, measured: bubble area ∝ its testers' successful calls", kind: kindBubbles, color: colThr, opacity: 0.45}
	estimated := series{name: "tester host, estimated along the sensor hierarchy", kind: kindRings, color: colThr}
	largest := 0
	for i, h := range hs {
		s := &measured
		if h.net.Estimated {
			s = &estimated
		}
		s.x, s.y, s.r = append(s.x, bs[i].x), append(s.y, bs[i].y), append(s.r, radius[i])
		largest = max(largest, h.ok)
	}
	measured.name += " (largest " + itoa(largest) + ")"
	c := &chart{
		id: idNetwork, title: "Calls completed against network latency and bandwidth per tester host",
		width: chartW, height: chartH,
		x: axis{title: "network latency to the target (ms, sensor mesh)", zero: true, pad: 0.08},
		y: axis{title: "bandwidth to the target (Mbit/s, sensor mesh)", zero: true, color: colThr, pad: 0.1},
	}
	for _, s := range []series{measured, estimated} {
		if len(s.x) > 0 {
			c.series = append(c.series, s)
		}
	}
	return c
}

// networkCaption is the caption of graph (j).
func networkCaption(r *analyze.Result) string {
	hs := hostLinks(r)
	s := "Figure j. Per tester host (" + itoa(len(hs)) + " with figures): its bandwidth to the target against its " +
		"network latency to it, as the sensor mesh measured them (experiment key sensors; network.csv); the area " +
		"of each bubble is proportional to the successful calls of the host's testers (thesis Fig. 46). A service " +
		"that shares itself fairly according to connectivity gives the best connected hosts (up and left) the " +
		"largest bubbles."
	if slices.ContainsFunc(hs, func(h hostLink) bool { return h.net.Estimated }) {
		s += " Rings: figures estimated along the mesh's hierarchy (bottleneck bandwidth, summed latency), not measured directly."
	}
	return s
}
