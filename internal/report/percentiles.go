package report

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/diperf/diperf/internal/analyze"
)

// tailPos places percentile rank p (0 to 100, below 100) on the tail
// scale: −log10(1 − p/100), so 0% is at 0, 90% at 1, 99% at 2, 99.9% at 3.
func tailPos(p float64) float64 {
	return -math.Log10(1 - min(max(p, 0), 100)/100)
}

// tailLabel names tick k of the tail scale: "0%", "90%", "99%", "99.9%", ...
func tailLabel(k int) string {
	switch {
	case k <= 0:
		return "0%"
	case k == 1:
		return "90%"
	case k == 2:
		return "99%"
	}
	return "99." + strings.Repeat("9", k-2) + "%"
}

// percentileChart draws the response-time distribution of the run: the
// response time at each percentile rank, on a scale that stretches the
// tail like an HdrHistogram plot; the maximum (100%) is one step beyond
// the last decade, labelled "max".
func percentileChart(r *analyze.Result) *chart {
	pts := slices.DeleteFunc(slices.Clone(r.Percentiles), func(p analyze.PercentilePoint) bool {
		return !finite(p.P) || !finite(p.Ms) || p.P < 0 || p.P > 100
	})
	slices.SortStableFunc(pts, func(a, b analyze.PercentilePoint) int { return cmp.Compare(a.P, b.P) })
	pts = evenly(pts, maxPoints)
	c := &chart{
		id: idPercentiles, title: "Response-time percentile distribution",
		width: chartW, height: chartH,
		x: axis{title: "percentile of the successful calls (tail scale: each step ten times closer to 100%)"},
		y: axis{title: rtTitle(r, "response time (ms)"), zero: true, color: colRT},
	}
	x, top, hasMax := tailPositions(pts)
	y := make([]float64, len(pts))
	for i, p := range pts {
		y[i] = p.Ms
	}
	c.x.ticks, c.x.labels = tailTicks(top, hasMax)
	c.x.lo, c.x.hi = 0, c.x.ticks[len(c.x.ticks)-1]
	c.series = []series{
		{name: "response time at the percentile", kind: kindLine, color: colRT, width: 2, x: x, y: y},
		{kind: kindPoints, color: colRT, width: 3, x: x, y: y},
	}
	switch note := percentileNote(pts); {
	case len(pts) == 0:
		c.notes = []string{"no data"}
	case note != "":
		c.notes = []string{note}
	}
	return c
}

// tailPositions places the points on the tail scale. It returns their x,
// the last decade tick the ranks below 100 need (at least 1), and whether
// the maximum is there, placed one step beyond that tick.
func tailPositions(pts []analyze.PercentilePoint) (x []float64, top int, hasMax bool) {
	top = 1
	for _, p := range pts {
		if p.P < 100 {
			top = max(top, int(math.Ceil(tailPos(p.P)-1e-9)))
		}
	}
	x = make([]float64, len(pts))
	for i, p := range pts {
		x[i] = tailPos(p.P)
		if p.P >= 100 {
			x[i], hasMax = float64(top+1), true
		}
	}
	return x, top, hasMax
}

// tailTicks returns the ticks 0..top of the tail scale and their labels,
// and one more labelled "max" when the maximum is drawn.
func tailTicks(top int, hasMax bool) ([]float64, []string) {
	var ticks []float64
	var labels []string
	for k := 0; k <= top; k++ {
		ticks, labels = append(ticks, float64(k)), append(labels, tailLabel(k))
	}
	if hasMax {
		ticks, labels = append(ticks, float64(top+1)), append(labels, "max")
	}
	return ticks, labels
}

// percentileNote quotes the median, p90, p99 and maximum when the
// distribution holds them.
func percentileNote(pts []analyze.PercentilePoint) string {
	var parts []string
	for _, w := range []struct {
		p    float64
		name string
	}{{50, "median"}, {90, "p90"}, {99, "p99"}, {100, "max"}} {
		i := slices.IndexFunc(pts, func(p analyze.PercentilePoint) bool { return p.P == w.p })
		if i >= 0 {
			parts = append(parts, w.name+" "+num(pts[i].Ms)+" ms")
		}
	}
	return strings.Join(parts, " · ")
}
