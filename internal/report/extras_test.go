package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// withExtras returns smallResult whose calls reported the keys of rate:
// key k at rate[k](i) per second in quantum i (1 s quanta, one call per
// unit of the rate), and the run's figures of each.
func withExtras(rate map[string]func(i int) float64) *analyze.Result {
	r := smallResult()
	r.Summary.Extras = map[string]analyze.ExtraStats{}
	for i := range r.Quanta {
		r.Quanta[i].Extras = map[string]analyze.ExtraQuantum{}
	}
	for k, f := range rate {
		var st analyze.ExtraStats
		for i := range r.Quanta {
			v := f(i)
			r.Quanta[i].Extras[k] = analyze.ExtraQuantum{Calls: 1, Sum: v, PerS: v, Mean: v}
			st.Calls++
			st.Sum += v
		}
		st.Mean, st.PerS = st.Sum/float64(st.Calls), st.Sum/r.Summary.DurationS
		r.Summary.Extras[k] = st
	}
	return r
}

// transfer is a file-transfer run: mb ramps from 10 to 21 MB/s, files
// cycles between 1 and 5 per second.
func transfer() *analyze.Result {
	return withExtras(map[string]func(int) float64{
		"mb":    func(i int) float64 { return float64(10 + i) },
		"files": func(i int) float64 { return float64(1 + 2*(i%3)) },
	})
}

// TestExtrasChartValues draws a file-transfer run: one line per key, in
// key order, each point at its quantum's start and its rate per second,
// on one axis (their peaks are 4.2 times apart), and the time axis is
// graph (a)'s.
func TestExtrasChartValues(t *testing.T) {
	t.Parallel()
	r := transfer()
	c := extrasChart(r)
	_, legendH := c.legendLayout()
	f := c.frame(legendH)
	out := c.svg()
	checkXML(t, out)
	if f.hasY2 {
		t.Error("keys within 20 times of each other are on two axes")
	}
	for k, key := range []string{"files", "mb"} {
		xs, ys, _ := pathPoints(t, out, extraColors[k], "1.8")
		if len(xs) != len(r.Quanta) {
			t.Fatalf("%s has %d points, want one per quantum, %d", key, len(xs), len(r.Quanta))
		}
		for i, q := range r.Quanta {
			want := q.Extras[key].PerS
			if !near(xs[i], f.x.at(q.T)) || !near(ys[i], f.y.at(want)) {
				t.Errorf("%s point %d at (%.1f, %.1f), want (%.1f, %.1f) for %v per second",
					key, i, xs[i], ys[i], f.x.at(q.T), f.y.at(want), want)
			}
		}
	}
	tl := timelineChart(r)
	_, tlH := tl.legendLayout()
	if tf := tl.frame(tlH); tf.x.d0 != f.x.d0 || tf.x.d1 != f.x.d1 || !slices.Equal(tf.xt, f.xt) {
		t.Errorf("time axis %v to %v s, ticks %v; want graph (a)'s, %v to %v s, ticks %v",
			f.x.d0, f.x.d1, f.xt, tf.x.d0, tf.x.d1, tf.xt)
	}
	if legend := legendRE.FindStringSubmatch(out); legend == nil || !strings.Contains(legend[1], "mb per second") ||
		!strings.Contains(legend[1], "files per second") || strings.Contains(legend[1], "axis") {
		t.Errorf("legend %q, want each key per second, no axis named", legend)
	}
}

// TestExtrasChartTwoAxes has keys whose rates are far apart: the large
// one is on the left axis, the two small ones on the right, each drawn
// against its own, and the legend and caption say so.
func TestExtrasChartTwoAxes(t *testing.T) {
	t.Parallel()
	r := withExtras(map[string]func(int) float64{
		"bytes": func(i int) float64 { return 1e6 * float64(1+i) },
		"files": func(i int) float64 { return float64(1 + i%2) },
		"mb":    func(i int) float64 { return float64(1 + i) },
	})
	c := extrasChart(r)
	_, legendH := c.legendLayout()
	f := c.frame(legendH)
	out := c.svg()
	if !f.hasY2 {
		t.Fatal("keys 12,000 times apart are on one axis")
	}
	for k, tc := range []struct {
		key   string
		right bool
	}{{"bytes", false}, {"files", true}, {"mb", true}} {
		s := c.series[k]
		if !strings.HasPrefix(s.name, tc.key+" per second") || s.right != tc.right {
			t.Errorf("series %d %q right %v, want %s right %v", k, s.name, s.right, tc.key, tc.right)
		}
		_, ys, _ := pathPoints(t, out, extraColors[k], "1.8")
		last := r.Quanta[len(r.Quanta)-1].Extras[tc.key].PerS
		if sc := f.sideScale(tc.right); !near(ys[len(ys)-1], sc.at(last)) {
			t.Errorf("%s last point at y %.1f, want %.1f", tc.key, ys[len(ys)-1], sc.at(last))
		}
	}
	if !strings.Contains(c.series[1].name, "(right axis)") || !strings.Contains(c.series[0].name, "(left axis)") {
		t.Errorf("legend names %q, %q do not say the axis", c.series[0].name, c.series[1].name)
	}
	if !strings.Contains(extrasCaption(r), "smaller ones are on the right axis") {
		t.Error("caption does not explain the two axes")
	}
}

// TestRightKeys splits peaks at their widest gap, only when the largest
// and the smallest are over 20 times apart; keys that stayed at 0 stay on
// the left.
func TestRightKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		peaks []float64
		want  string
	}{
		{[]float64{100, 5}, "LL"},
		{[]float64{100, 4}, "LR"},
		{[]float64{1, 1000, 300, 2}, "RLLR"},
		{[]float64{0, 1000, 1}, "LLR"},
		{[]float64{7}, "L"},
		{nil, ""},
	}
	for _, tc := range tests {
		got := ""
		for _, r := range rightKeys(tc.peaks) {
			got += map[bool]string{false: "L", true: "R"}[r]
		}
		if got != tc.want {
			t.Errorf("rightKeys(%v) = %s, want %s", tc.peaks, got, tc.want)
		}
	}
}

// TestExtrasManyKeys has 8 keys: the 6 the most calls reported are
// drawn, the caption names the 2 others and gives every key's figures.
func TestExtrasManyKeys(t *testing.T) {
	t.Parallel()
	rate := map[string]func(int) float64{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		rate[k] = func(int) float64 { return 1 }
	}
	r := withExtras(rate)
	for k, calls := range map[string]int{"a": 1, "c": 2} {
		st := r.Summary.Extras[k]
		st.Calls = calls
		r.Summary.Extras[k] = st
	}
	var names []string
	for _, s := range extrasChart(r).series {
		names = append(names, strings.TrimSuffix(s.name, " per second"))
	}
	if got := strings.Join(names, ","); got != "b,d,e,f,g,h" {
		t.Errorf("drawn keys %s, want the 6 the most calls reported, b,d,e,f,g,h", got)
	}
	caption := extrasCaption(r)
	if !strings.Contains(caption, "not drawn: a, c.") {
		t.Errorf("caption %q does not name the keys left out", caption)
	}
	if !strings.Contains(caption, "a total 12 over 1 calls, mean 1 per call, 1 per second; b total 12") {
		t.Errorf("caption %q lacks every key's figures", caption)
	}
}

// TestExtrasFigureOnlyWithExtras renders a run with extras: graph (i) is
// last, after (h) in an open run, captioned with each key's figures over
// the run; a run without extras has no graph (i) (TestGolden keeps its
// page byte for byte).
func TestExtrasFigureOnlyWithExtras(t *testing.T) {
	t.Parallel()
	figs := figureRE.FindAllStringSubmatch(render(t, transfer()), -1)
	if len(figs) != len(graphSpecs)+1 {
		t.Fatalf("page has %d figures, want %d", len(figs), len(graphSpecs)+1)
	}
	i := figs[len(figs)-1]
	if i[1] != ExtrasGraphID || !strings.HasPrefix(i[2], `<svg id="`+ExtrasGraphID+`"`) {
		t.Fatalf("last figure is %q, want %q", i[1], ExtrasGraphID)
	}
	checkXML(t, i[2])
	if !strings.HasPrefix(i[3], "Figure i. ") || !strings.Contains(i[3], `<a href="`+ExtrasGraphID+`.svg">`) ||
		!strings.Contains(i[3], "files total 36 over 12 calls, mean 3 per call, 3 per second; mb total 186 over "+
			"12 calls, mean 15.5 per call, 15.5 per second.") {
		t.Errorf("graph (i) caption %q", i[3])
	}
	var axes []string
	for _, m := range axisTitleRE.FindAllStringSubmatch(i[2], -1) {
		axes = append(axes, m[1])
	}
	if want := "time since the first tester started (s)|value per second (the key&#39;s unit/s)"; strings.Join(axes, "|") != want {
		t.Errorf("graph (i) axes %q, want %q", axes, want)
	}

	open := stalledOpenResult()
	for i := range open.Quanta {
		open.Quanta[i].Extras = map[string]analyze.ExtraQuantum{"mb": {Calls: 2, Sum: 3, PerS: 3, Mean: 1.5}}
	}
	figs = figureRE.FindAllStringSubmatch(render(t, open), -1)
	if n := len(figs); n != len(graphSpecs)+2 || figs[n-2][1] != OpenRateGraphID || figs[n-1][1] != ExtrasGraphID {
		t.Errorf("open run with extras: %d figures, want (h) then (i) last", n)
	}

	if strings.Contains(render(t, smallResult()), idExtras) {
		t.Error("a run without extras has graph (i)")
	}
}

// TestWriteFileExtras writes a run with extras: graph (i) is written
// beside the page like the others.
func TestWriteFileExtras(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := transfer()
	if err := WriteFile(dir, r, smallModel()); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	page := render(t, r)
	for _, id := range append(GraphIDs(), ExtrasGraphID) {
		checkSVGFile(t, filepath.Join(dir, id+".svg"), page)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2+len(GraphIDs()) {
		t.Errorf("dir holds %d entries, want the page and %d graphs", len(entries), 1+len(GraphIDs()))
	}
}
