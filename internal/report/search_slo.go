package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/search"
)

// sloUnit is the unit of an SLO's statistic: % for the error rate, ms
// for the rest (pNN_ms, mean_ms).
func sloUnit(slo string) string {
	if strings.HasPrefix(strings.TrimSpace(slo), "error_rate") {
		return "%"
	}
	return "ms"
}

// stepAxis is the x axis of the graphs drawn per step: the steps' numbers.
func stepAxis(n int) axis {
	return axis{title: "step", fixed: true, lo: 0.5, hi: float64(max(n, 1)) + 0.5, integer: true}
}

// sloScale is how many times the objective graph (s2)'s y axis reaches at
// least: a statistic far above (a saturated step) is drawn at its top.
const sloScale = 3

// searchSLOChart is graph (s2) for the i-th SLO (from 1): its statistic
// in each step, with its 95% interval, against the objective; a dot
// where the step met it, a cross where it failed, a ring where the
// decision was weak (by point estimate at the step's limit). The y axis
// reaches sloScale times the objective (more when a met step's interval
// does): what lies above is drawn at the top, and a note says so.
func searchSLOChart(v *searchView, i int, slo string) *chart {
	steps := v.res.Steps
	c := &chart{id: SearchSLOGraphID + strconv.Itoa(i), title: "SLO " + short(slo) + ": its statistic per step",
		width: chartW, height: chartH, x: stepAxis(lastStep(steps)),
		y: axis{title: short(slo) + " (" + sloUnit(slo) + ")", zero: true}}
	top, objective := sloTop(steps, slo)
	var above []string
	c.series, above = sloSeries(steps, slo, top)
	c.rules = []rule{{v: objective, color: colObjective}}
	c.extra = []legendItem{{name: "objective", color: colObjective, kind: kindDashed, width: 1.5}}
	c.notes = sloNotes(len(c.series) == 0, above)
	if len(above) > 0 { // room above the top, so that what is drawn there shows whole
		c.y = axis{title: c.y.title, fixed: true, lo: 0, hi: top * 1.1}
	}
	return c
}

// sloSeries are graph (s2)'s series for slo, values above top drawn at
// it, and the steps whose statistic is above it.
func sloSeries(steps []search.StepRecord, slo string, top float64) ([]series, []string) {
	band := series{name: "95% interval", kind: kindBars, color: colUnmeasured, opacity: 0.45, width: 0.25}
	meets := series{name: "met", kind: kindPoints, color: colMeets, width: 4}
	fails := series{name: "failed", kind: kindCross, color: colFails, width: 2}
	weak := series{name: "weak (point estimate at the step's limit)", kind: kindRings, color: colWeak}
	var above []string
	for k := range steps {
		rec := sloRecord(&steps[k], slo)
		if rec == nil || rec.Value == nil {
			continue
		}
		x, val := float64(steps[k].Step), min(*rec.Value, top)
		if *rec.Value > top {
			above = append(above, "step "+strconv.Itoa(steps[k].Step)+": "+num(*rec.Value))
		}
		if rec.Low != nil && rec.High != nil {
			band.x, band.y, band.base = append(band.x, x), append(band.y, min(*rec.High, top)), append(band.base, min(*rec.Low, top))
		}
		pt := &meets
		if rec.Decision == search.Fails {
			pt = &fails
		}
		pt.x, pt.y = append(pt.x, x), append(pt.y, val)
		if rec.Weak {
			weak.x, weak.y, weak.r = append(weak.x, x), append(weak.y, val), append(weak.r, 7)
		}
	}
	return nonEmpty(band, meets, fails, weak), above
}

// sloTop is the top of graph (s2)'s y axis for slo: sloScale times its
// objective, or the highest end of a met step's interval when higher
// (+Inf when the objective is 0 or unknown); and the objective.
func sloTop(steps []search.StepRecord, slo string) (top, objective float64) {
	objective = nan
	for k := range steps {
		if rec := sloRecord(&steps[k], slo); rec != nil && rec.Value != nil {
			objective = rec.Objective
		}
	}
	if !(objective > 0) {
		return math.Inf(1), objective
	}
	top = sloScale * objective
	for k := range steps {
		if rec := sloRecord(&steps[k], slo); rec != nil && rec.Decision == search.Meets && rec.High != nil {
			top = max(top, *rec.High)
		}
	}
	return top, objective
}

// sloNotes are graph (s2)'s notes: that nothing was measured, or which
// statistics are above the axis, drawn at its top (the first 3).
func sloNotes(empty bool, above []string) []string {
	switch {
	case empty:
		return []string{"no step measured this SLO"}
	case len(above) == 0:
		return nil
	}
	s := "drawn at the top, above it: " + strings.Join(above[:min(len(above), 3)], ", ")
	if len(above) > 3 {
		s += ", …"
	}
	return []string{s}
}

// sloRecord is step st's record of slo, nil when it has none.
func sloRecord(st *search.StepRecord, slo string) *search.SLORecord {
	for i := range st.SLOs {
		if st.SLOs[i].SLO == slo {
			return &st.SLOs[i]
		}
	}
	return nil
}

// lastStep is the number of the last step (0 when none).
func lastStep(steps []search.StepRecord) int {
	if len(steps) == 0 {
		return 0
	}
	return steps[len(steps)-1].Step
}

// nonEmpty keeps the series that have points.
func nonEmpty(ss ...series) []series {
	var out []series
	for _, s := range ss {
		if len(s.x) > 0 {
			out = append(out, s)
		}
	}
	return out
}
