package report

import (
	"math"
	"sort"

	"github.com/diperf/diperf/internal/webui"
)

// serverSpec is the interactive chart of one server-view panel: the
// server's lines, read at the client view's quanta (linear interpolation
// between two scrapes; nothing outside the scrapes' span), on the left
// axis, the clients' throughput on the right.
func serverSpec(p ServerPanel) *webui.ChartSpec {
	x := p.Client.X
	ss := make([]webui.Series, 0, len(p.Server)+1)
	for _, l := range p.Server {
		ss = append(ss, webui.Series{Label: l.Name, Unit: l.Unit, Axis: webui.AxisLeft, Values: at(l, x), SpanGaps: true})
	}
	ss = append(ss, webui.Series{Label: "throughput (clients)", Unit: p.Client.Unit, Axis: webui.AxisRight, Color: colThr,
		Values: append([]float64(nil), p.Client.Y...)})
	return timeSpec(p.ID, p.Title, x, ss)
}

// at reads line l at each of xs by linear interpolation; NaN (a gap)
// before its first point or after its last.
func at(l ServerLine, xs []float64) []float64 {
	out := make([]float64, len(xs))
	n := min(len(l.X), len(l.Y))
	for i, x := range xs {
		out[i] = math.NaN()
		if n == 0 || x < l.X[0] || x > l.X[n-1] {
			continue
		}
		j := sort.SearchFloat64s(l.X[:n], x) // l.X[j-1] < x ≤ l.X[j]
		if j == 0 || l.X[j] == x {
			out[i] = l.Y[j]
			continue
		}
		x0, x1, y0, y1 := l.X[j-1], l.X[j], l.Y[j-1], l.Y[j]
		out[i] = y0 + (y1-y0)*(x-x0)/(x1-x0)
	}
	return out
}
