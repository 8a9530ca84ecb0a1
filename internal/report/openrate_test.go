package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// Shape of stalledOpenResult.
const (
	openRate    = 100 // calls/s offered in every quantum
	stallFrom   = 8   // first quantum in which the service is stalled
	stallTo     = 10  // first quantum after the stall, which catches up
	stallQuanta = 20
)

// stalledOpenResult is an open-model run offered 100 calls/s for 20 s
// whose service stalls for 2 s (quanta 8 and 9): no call starts then, the
// calls due in them start late in quantum 10 (300 calls/s achieved), but
// for 30 of quantum 9's, which are dropped.
func stalledOpenResult() *analyze.Result {
	r := smallResult()
	r.Quanta = nil
	for i := range stallQuanta {
		o := &analyze.OpenQuantum{OfferedPS: openRate, AchievedPS: openRate}
		switch i {
		case stallFrom:
			o.AchievedPS, o.Late = 0, openRate
		case stallFrom + 1:
			o.AchievedPS, o.Late, o.Dropped = 0, openRate-30, 30
		case stallTo:
			o.AchievedPS = 3*openRate - 30
		}
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(i), Load: 5, Throughput: o.AchievedPS, OK: 100,
			RT: analyze.RTStats{N: 100, Mean: 10}, Open: o})
	}
	r.Summary.Open = &analyze.OpenModel{Intended: openRate * stallQuanta, Started: openRate*stallQuanta - 30,
		Late: 2*openRate - 30, Dropped: 30, OfferedPS: openRate, AchievedPS: openRate - 1.5}
	return r
}

// pathPoints returns the points of the first path in svg drawn in color
// at the given stroke width, and its whole start tag.
func pathPoints(t *testing.T, svg, color, width string) (xs, ys []float64, tag string) {
	t.Helper()
	re := regexp.MustCompile(`<path fill="none" stroke="` + color + `" stroke-width="` + width + `"[^>]* d="([^"]+)"/>`)
	m := re.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no path of colour %s and width %s", color, width)
	}
	nums := numRE.FindAllString(strings.NewReplacer("M", " ", "L", " ").Replace(m[1]), -1)
	for i := 0; i+1 < len(nums); i += 2 {
		x, errX := strconv.ParseFloat(nums[i], 64)
		y, errY := strconv.ParseFloat(nums[i+1], 64)
		if errX != nil || errY != nil {
			t.Fatalf("path data %q", m[1])
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	return xs, ys, m[0]
}

var rectRE = regexp.MustCompile(`<rect x="([^"]+)" y="([^"]+)" width="[^"]+" height="([^"]+)"/>`)

// barGroup returns x, top and height in px of each bar of the first bar
// group drawn in color.
func barGroup(t *testing.T, svg, color string) (xs, tops, hs []float64) {
	t.Helper()
	re := regexp.MustCompile(`<g fill="` + color + `"[^>]*>((?:<rect [^>]*/>)*)</g>`)
	m := re.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no bar group of colour %s", color)
	}
	for _, r := range rectRE.FindAllStringSubmatch(m[1], -1) {
		x, _ := strconv.ParseFloat(r[1], 64)
		y, _ := strconv.ParseFloat(r[2], 64)
		h, _ := strconv.ParseFloat(r[3], 64)
		xs, tops, hs = append(xs, x), append(tops, y), append(hs, h)
	}
	return xs, tops, hs
}

// near reports whether a and b are within half a pixel of each other.
func near(a, b float64) bool { return math.Abs(a-b) <= 0.5 }

// TestOpenRateChartShowsStall draws a run whose service stalls: the
// offered rate is a flat line at 100 calls/s; the achieved rate drops to
// 0 in the two stalled quanta and overshoots after them; the late calls
// stand in the stalled quanta, the dropped ones stacked on top of them.
func TestOpenRateChartShowsStall(t *testing.T) {
	t.Parallel()
	c := openRateChart(stalledOpenResult())
	_, legendH := c.legendLayout()
	f := c.frame(legendH)
	out := c.svg()
	checkXML(t, out)

	_, oy, tag := pathPoints(t, out, colOffered, "2")
	if !strings.Contains(tag, "stroke-dasharray") {
		t.Error("the offered rate is not dashed")
	}
	for _, y := range oy {
		if !near(y, f.y.at(openRate)) {
			t.Fatalf("offered rate line at y %v, want all at %v (100 calls/s)", oy, f.y.at(openRate))
		}
	}
	ax, ay, _ := pathPoints(t, out, colAchieved, "2")
	if len(ax) != stallQuanta {
		t.Fatalf("achieved rate has %d points, want one per quantum, %d", len(ax), stallQuanta)
	}
	for i := range ax {
		want := float64(openRate)
		switch i {
		case stallFrom, stallFrom + 1:
			want = 0
		case stallTo:
			want = 3*openRate - 30
		}
		if mid := float64(i) + 0.5; !near(ax[i], f.x.at(mid)) || !near(ay[i], f.y.at(want)) {
			t.Errorf("achieved rate point %d at (%.1f, %.1f), want (%.1f, %.1f) for %v calls/s",
				i, ax[i], ay[i], f.x.at(mid), f.y.at(want), want)
		}
	}

	lx, ltop, lh := barGroup(t, out, colLate)
	dx, dtop, dh := barGroup(t, out, colDropped)
	if len(lx) != 2 || len(dx) != 1 {
		t.Fatalf("%d late and %d dropped bars, want 2 and 1 (only quanta with such calls)", len(lx), len(dx))
	}
	zero := f.u.at(0)
	for i, want := range []float64{openRate, openRate - 30} {
		if !near(ltop[i]+lh[i], zero) || !near(ltop[i], f.u.at(want)) {
			t.Errorf("late bar %d spans %.1f to %.1f px, want %.1f to %.1f (%v calls)", i, ltop[i], ltop[i]+lh[i],
				f.u.at(want), zero, want)
		}
	}
	if !near(dtop[0]+dh[0], ltop[1]) || !near(dtop[0], f.u.at(openRate)) || dx[0] != lx[1] {
		t.Errorf("dropped bar spans %.1f to %.1f px at x %.1f, want on top of quantum 9's late bar, up to %.1f",
			dtop[0], dtop[0]+dh[0], dx[0], f.u.at(openRate))
	}
	if f.x.d0 != 0 || f.x.d1 != stallQuanta {
		t.Errorf("time axis from %v to %v s, want the run's span, 0 to %d", f.x.d0, f.x.d1, stallQuanta)
	}
	if !(f.u.r0 < f.y.r1) {
		t.Errorf("late and dropped calls are not in the upper panel: %+v above %+v", f.u, f.y)
	}
}

// TestOpenRateFigureOnlyInOpenRuns renders an open run's page: it has
// graph (h), last, named, captioned and titled like the others, and every
// response-time axis says it runs from the intended start; a closed-loop
// run's page has neither.
func TestOpenRateFigureOnlyInOpenRuns(t *testing.T) {
	t.Parallel()
	page := render(t, stalledOpenResult())
	figs := figureRE.FindAllStringSubmatch(page, -1)
	if len(figs) != len(graphSpecs)+1 {
		t.Fatalf("open run's page has %d figures, want %d", len(figs), len(graphSpecs)+1)
	}
	h := figs[len(figs)-1]
	if h[1] != OpenRateGraphID || !strings.HasPrefix(h[2], `<svg id="`+OpenRateGraphID+`"`) {
		t.Fatalf("last figure is %q, want %q", h[1], OpenRateGraphID)
	}
	checkXML(t, h[2])
	if caption := h[3]; !strings.HasPrefix(caption, "Figure h. ") || !strings.Contains(caption, `<a href="`+OpenRateGraphID+`.svg">`) ||
		!strings.Contains(caption, "2000 calls due, 1970 started, 170 late, 30 dropped") {
		t.Errorf("graph (h) caption %.300q", caption)
	}
	var axes []string
	for _, m := range axisTitleRE.FindAllStringSubmatch(h[2], -1) {
		axes = append(axes, m[1])
	}
	if want := []string{"time since the first tester started (s)", "rate (calls/s)",
		"late / dropped calls per quantum"}; strings.Join(axes, "|") != strings.Join(want, "|") {
		t.Errorf("graph (h) axes %q, want %q", axes, want)
	}
	legend := legendRE.FindStringSubmatch(h[2])
	for _, w := range []string{"offered rate", "achieved rate", "late: started over 10 ms after", "dropped: never started"} {
		if legend == nil || !strings.Contains(legend[1], w) {
			t.Errorf("graph (h) legend lacks %q", w)
		}
	}
	for _, id := range []string{idTimeline, idLatencyBubbles, idSaturation, idPercentiles} {
		if !strings.Contains(figureOf(t, figs, id), "response time from intended start") {
			t.Errorf("%s of an open run does not say response time runs from the intended start", id)
		}
	}

	closed := render(t, smallResult())
	if strings.Contains(closed, OpenRateGraphID) || strings.Contains(closed, "intended start") {
		t.Error("a closed-loop run's page has the open model's graph or wording")
	}
}

// figureOf returns the svg and caption of figure id among figs.
func figureOf(t *testing.T, figs [][]string, id string) string {
	t.Helper()
	for _, f := range figs {
		if f[1] == id {
			return f[2] + f[3]
		}
	}
	t.Fatalf("no figure %s", id)
	return ""
}

// TestOpenRateBarsFolded has more quanta than bars are drawn: each bar
// then sums a run of quanta, the axis says how many, and no late or
// dropped call is lost in the folding.
func TestOpenRateBarsFolded(t *testing.T) {
	t.Parallel()
	r := &analyze.Result{Summary: analyze.Summary{QuantumS: 0.5}}
	n, late, dropped := 2*maxBars+7, 0, 0
	for i := range n {
		o := &analyze.OpenQuantum{OfferedPS: 10, AchievedPS: 10, Late: i % 3, Dropped: i % 2}
		late, dropped = late+o.Late, dropped+o.Dropped
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(i) / 2, Open: o})
	}
	c := openRateChart(r)
	if c.upper.title != "late / dropped calls per 3 quanta" {
		t.Errorf("upper axis %q, want it per 3 quanta", c.upper.title)
	}
	var gotLate, gotDropped float64
	for _, s := range c.series {
		if s.kind != kindBars {
			continue
		}
		if len(s.x) > maxBars || s.width != 1.5 {
			t.Errorf("%d bars %v wide, want at most %d, 1.5 s wide", len(s.x), s.width, maxBars)
		}
		for i := range s.y {
			if s.color == colLate {
				gotLate += s.y[i] - s.baseAt(i)
			} else {
				gotDropped += s.y[i] - s.baseAt(i)
			}
		}
	}
	if gotLate != float64(late) || gotDropped != float64(dropped) {
		t.Errorf("bars hold %v late and %v dropped calls, want %d and %d", gotLate, gotDropped, late, dropped)
	}
}

// TestWriteFileOpen writes an open run's report: graph (h) is written
// beside it as an .svg file like the others.
func TestWriteFileOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := stalledOpenResult()
	if err := WriteFile(dir, r, smallModel()); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	page := render(t, r)
	for _, id := range append(GraphIDs(), OpenRateGraphID) {
		checkSVGFile(t, filepath.Join(dir, id+".svg"), page)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2+len(GraphIDs()) {
		t.Errorf("dir holds %d entries, want the page and %d graphs", len(entries), 1+len(GraphIDs()))
	}
}
