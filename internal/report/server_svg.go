package report

import "github.com/diperf/diperf/internal/analyze"

// Colours of the server view's lines.
var serverColors = []string{colUtil, colFair, colLoad, colRT, colLive}

// serverChart draws one panel of the server view: its server lines on
// the left axis, the clients' throughput on the right.
func serverChart(p ServerPanel) *chart {
	unit := ""
	if len(p.Server) > 0 {
		unit = p.Server[0].Unit
	}
	c := &chart{
		id: p.ID, title: p.Title, width: chartW, height: chartH,
		x:  axis{title: "time since the first tester started (s)"},
		y:  axis{title: "server (" + unit + ")", zero: true, color: serverColors[0], pad: 0.05},
		y2: axis{title: "throughput (calls/s)", zero: true, color: colThr},
	}
	if unit == "%" {
		c.y.fixed, c.y.lo, c.y.hi = true, 0, 100
	}
	empty := true
	for i, s := range p.Server {
		xs, ys := minMax(s.X, s.Y, maxPoints)
		c.series = append(c.series, series{name: s.Name + " (left axis)", kind: kindLine, width: 1.8,
			color: serverColors[i%len(serverColors)], x: xs, y: ys})
		empty = empty && len(s.X) == 0
	}
	xs, ys := minMax(p.Client.X, p.Client.Y, maxPoints)
	c.series = append(c.series, series{name: p.Client.Name + " (right axis)", kind: kindLine, width: 1.4,
		color: colThr, right: true, x: xs, y: ys})
	if empty {
		c.notes = []string{"no server data: no successful scrapes with these metrics"}
	}
	return c
}

// serverFigures renders the server view's graphs (k1, k2, ...), none for a
// run without node_exporter-like nor log monitor data.
func serverFigures(r *analyze.Result) []figure {
	v := ServerViewOf(r)
	if v == nil {
		return nil
	}
	out := make([]figure, 0, len(v.Panels))
	for i, p := range v.Panels {
		out = append(out, interactive(newFigure(serverChart(p), serverCaption(p, "k"+itoa(i+1))), serverSpec(p)))
	}
	return out
}
