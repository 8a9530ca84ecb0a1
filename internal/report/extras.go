package report

import (
	"math"
	"slices"
	"strings"

	"github.com/diperf/diperf/internal/analyze"
)

// ExtrasGraphID is the element id of the client-reported extras' chart,
// graph (i), which only the report of a run whose clients reported extras
// has (after the graphs of GraphIDs and, in an open-model run,
// OpenRateGraphID); it is also written beside the report as an .svg file.
const ExtrasGraphID = idExtras

// idExtras is the element id of graph (i).
const idExtras = "graph-i-extras"

// Limits of the extras' chart.
const (
	maxExtraLines = 6  // keys drawn; the others are named in the caption
	extraSplit    = 20 // peak rates further apart than this go on two axes
)

// extraColors are the colours of the keys drawn, in key order.
var extraColors = [maxExtraLines]string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf"}

// hasExtras reports whether r's clients reported extras.
func hasExtras(r *analyze.Result) bool {
	return len(r.Summary.Extras) > 0 || len(analyze.ExtraKeys(r.Quanta)) > 0
}

// extraKeys returns the keys of r's extras, sorted: those of its quanta
// and those of its summary.
func extraKeys(r *analyze.Result) []string {
	keys := analyze.ExtraKeys(r.Quanta)
	for k := range r.Summary.Extras {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// drawnExtras splits the keys into those drawn, at most maxExtraLines,
// and those left out: the keys the most calls reported are drawn (ties by
// name), each list in key order.
func drawnExtras(r *analyze.Result, keys []string) (drawn, left []string) {
	if len(keys) <= maxExtraLines {
		return keys, nil
	}
	byCalls := slices.Clone(keys)
	slices.SortStableFunc(byCalls, func(a, b string) int {
		return r.Summary.Extras[b].Calls - r.Summary.Extras[a].Calls
	})
	drawn, left = byCalls[:maxExtraLines], byCalls[maxExtraLines:]
	slices.Sort(drawn)
	slices.Sort(left)
	return drawn, left
}

// extraRates returns, per quantum, key's values summed per second (NaN
// where a quantum lacks the key), and the largest magnitude among them.
func extraRates(r *analyze.Result, key string) ([]float64, float64) {
	y := make([]float64, len(r.Quanta))
	peak := 0.0
	for i, q := range r.Quanta {
		y[i] = nan
		if x, ok := q.Extras[key]; ok {
			y[i] = x.PerS
			if finite(x.PerS) {
				peak = max(peak, math.Abs(x.PerS))
			}
		}
	}
	return y, peak
}

// rightKeys decides which keys go on the right axis, given each one's
// peak rate: none when all peaks are within extraSplit of each other;
// else those below the widest gap between consecutive peaks (in ratio),
// so that small rates are not drawn flat against large ones.
func rightKeys(peaks []float64) []bool {
	right := make([]bool, len(peaks))
	order := make([]int, 0, len(peaks))
	for i, p := range peaks {
		if p > 0 {
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return right
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case peaks[a] > peaks[b]:
			return -1
		case peaks[a] < peaks[b]:
			return 1
		}
		return 0
	})
	if peaks[order[0]]/peaks[order[len(order)-1]] <= extraSplit {
		return right
	}
	cut, widest := 1, 0.0
	for k := 1; k < len(order); k++ {
		if g := peaks[order[k-1]] / peaks[order[k]]; g > widest {
			cut, widest = k, g
		}
	}
	for _, i := range order[cut:] {
		right[i] = true
	}
	return right
}

// extrasChart is graph (i): per quantum, each drawn key's values summed
// per second over time (e.g. MB/s), one line per key, at the quanta's
// start times like graph (a), so that its time axis matches (a)'s.
func extrasChart(r *analyze.Result) *chart {
	drawn, _ := drawnExtras(r, extraKeys(r))
	n := len(r.Quanta)
	t := make([]float64, n)
	for i, q := range r.Quanta {
		t[i] = q.T
	}
	ys, peaks := make([][]float64, len(drawn)), make([]float64, len(drawn))
	for i, k := range drawn {
		ys[i], peaks[i] = extraRates(r, k)
	}
	right := rightKeys(peaks)
	split := slices.Contains(right, true)
	c := &chart{
		id: idExtras, title: "Client-reported extras over time",
		width: chartW, height: chartH,
		x: axis{title: "time since the first tester started (s)"},
		y: axis{title: "value per second (the key's unit/s)", zero: true, pad: 0.05},
	}
	if split {
		c.y.title = "value per second, larger keys (unit/s)"
		c.y2 = axis{title: "value per second, smaller keys (unit/s)", zero: true, pad: 0.05}
	}
	for i, k := range drawn {
		name := k + " per second"
		switch {
		case split && right[i]:
			name += " (right axis)"
		case split:
			name += " (left axis)"
		}
		xs, vs := minMax(t, ys[i], maxPoints)
		c.series = append(c.series, series{name: name, kind: kindLine, color: extraColors[i], width: 1.8,
			right: right[i], x: xs, y: vs})
	}
	if n == 0 {
		c.notes = []string{"no data"}
	}
	return c
}

// extrasCaption is the caption of graph (i): what it draws, and each
// key's figures over the whole run.
func extrasCaption(r *analyze.Result) string {
	keys := extraKeys(r)
	drawn, left := drawnExtras(r, keys)
	s := "Figure i. The extras the clients reported with their calls (key=value): per " + num(r.Summary.QuantumS) +
		" s quantum since the first tester started, each key's values summed over the calls completed in the " +
		"quantum, per second (a key counting megabytes transferred gives MB/s, as in DiPerF's GridFTP study), one " +
		"line per key, drawn at the quantum's start like Figure a."
	if len(drawn) > 1 {
		peaks := make([]float64, len(drawn))
		for i, k := range drawn {
			_, peaks[i] = extraRates(r, k)
		}
		if slices.Contains(rightKeys(peaks), true) {
			s += " The keys' rates differ by more than " + itoa(extraSplit) + " times, so the smaller ones are on " +
				"the right axis (split where their peaks are furthest apart), lest they be drawn flat."
		}
	}
	if len(left) > 0 {
		s += " Only the " + itoa(maxExtraLines) + " keys the most calls reported are drawn; not drawn: " +
			strings.Join(left, ", ") + "."
	}
	if st := extraTotals(r.Summary.Extras, keys); st != "" {
		s += " Whole run (every call that reported the key, whatever its status): " + st + "."
	}
	if ig := r.Summary.ExtrasIgnored; ig > 0 {
		s += " " + itoa(ig) + " values were left out: of keys past the first " + itoa(analyze.MaxExtraKeys) +
			", or not finite."
	}
	return s
}

// extraTotals lists each key's run figures: its total, the calls that
// reported it, the mean per call and the total per second of the run.
func extraTotals(ex map[string]analyze.ExtraStats, keys []string) string {
	var parts []string
	for _, k := range keys {
		st, ok := ex[k]
		if !ok {
			continue
		}
		parts = append(parts, k+" total "+num(st.Sum)+" over "+itoa(st.Calls)+" calls, mean "+num(st.Mean)+
			" per call, "+num(st.PerS)+" per second")
	}
	return strings.Join(parts, "; ")
}
