package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// offsetPaths counts the offset-change lines drawn in a clock chart.
func offsetPaths(svg string) int {
	return strings.Count(svg, `<path fill="none" stroke="`+colOffset+`" stroke-width="1"`)
}

func TestClockChart(t *testing.T) {
	t.Parallel()
	out := clockChart(smallResult()).svg()
	checkXML(t, out)
	if n := offsetPaths(out); n != 4 {
		t.Errorf("clock chart draws %d offset lines, want 4", n)
	}
	if strings.Contains(out, ">3600000<") || strings.Contains(out, "showing") {
		t.Errorf("clock chart plots absolute offsets or says it left testers out:\n%s", out)
	}
	for _, want := range []string{"offset change since first sync (ms)", "error bound (ms)"} {
		if !strings.Contains(out, want) {
			t.Errorf("clock chart lacks %q", want)
		}
	}
}

func TestClockSeriesIsChange(t *testing.T) {
	t.Parallel()
	ss := clockSeries(syncs(3, 4, 2), 100)
	if want := []float64{0, 0.75, 1.5, 2.25}; !slices.Equal(ss[0].y, want) {
		t.Errorf("offset change = %v, want %v", ss[0].y, want)
	}
	if want := []float64{0.25, 0.375, 0.5, 0.25}; !slices.Equal(ss[1].y, want) || !ss[1].right {
		t.Errorf("bounds = %v (right %v), want %v on the right axis", ss[1].y, ss[1].right, want)
	}
}

func TestClockChartManyTesters(t *testing.T) {
	t.Parallel()
	r := bigResult(10, 120, 3000)
	out := clockChart(r).svg()
	checkXML(t, out)
	if n := offsetPaths(out); n != maxClockTesters {
		t.Errorf("clock chart draws %d offset lines, want %d", n, maxClockTesters)
	}
	if !strings.Contains(out, "showing 50 of 120 testers with clock syncs") {
		t.Error("clock chart does not say it left testers out")
	}
	if !strings.Contains(clockCaption(r), "Only 50 of the 120 testers") {
		t.Error("clock caption does not say it left testers out")
	}
	if n := strings.Count(out, "<circle") - 1; n > clockBudget { // one circle is the legend's
		t.Errorf("clock chart draws %d bound dots, want at most %d", n, clockBudget)
	}
}

func TestClockChartNoSyncs(t *testing.T) {
	t.Parallel()
	r := smallResult()
	for i := range r.Clients {
		r.Clients[i].Clock.Syncs = nil
	}
	for _, res := range []*analyze.Result{r, {}} {
		out := clockChart(res).svg()
		checkXML(t, out)
		if !strings.Contains(out, "no clock syncs recorded") {
			t.Error("clock chart lacks the no-syncs note")
		}
	}
}

func TestEvenly(t *testing.T) {
	t.Parallel()
	s := make([]int, 120)
	for i := range s {
		s[i] = i
	}
	got := evenly(s, 50)
	if len(got) != 50 || got[0] != 0 || got[49] != 119 || !slices.IsSorted(got) {
		t.Errorf("evenly(120 items, 50) = %v", got)
	}
	if len(slices.Compact(slices.Clone(got))) != 50 {
		t.Errorf("evenly picked an item twice: %v", got)
	}
	if got := evenly(s[:7], 50); len(got) != 7 {
		t.Errorf("evenly thinned 7 items to %d", len(got))
	}
}
