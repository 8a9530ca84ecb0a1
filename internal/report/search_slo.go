package report

import (
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

// searchSLOChart is graph (s2) for the i-th SLO (from 1): its statistic
// in each step, with its 95% interval, against the objective; a dot
// where the step met it, a cross where it failed, a ring where the
// decision was weak (by point estimate at the step's limit).
func searchSLOChart(v *searchView, i int, slo string) *chart {
	steps := v.res.Steps
	unit := sloUnit(slo)
	c := &chart{id: SearchSLOGraphID + strconv.Itoa(i), title: "SLO " + short(slo) + ": its statistic per step",
		width: chartW, height: chartH, x: stepAxis(lastStep(steps)), y: axis{title: slo + " (" + unit + ")", zero: true}}
	band := series{name: "95% interval", kind: kindBars, color: colUnmeasured, opacity: 0.45, width: 0.25}
	meets := series{name: "met", kind: kindPoints, color: colMeets, width: 4}
	fails := series{name: "failed", kind: kindCross, color: colFails, width: 2}
	weak := series{name: "weak (point estimate at the step's limit)", kind: kindRings, color: colWeak}
	objective := nan
	for k := range steps {
		rec := sloRecord(&steps[k], slo)
		if rec == nil || rec.Value == nil {
			continue
		}
		x := float64(steps[k].Step)
		objective = rec.Objective
		if rec.Low != nil && rec.High != nil {
			band.x, band.y, band.base = append(band.x, x), append(band.y, *rec.High), append(band.base, *rec.Low)
		}
		pt := &meets
		if rec.Decision == search.Fails {
			pt = &fails
		}
		pt.x, pt.y = append(pt.x, x), append(pt.y, *rec.Value)
		if rec.Weak {
			weak.x, weak.y, weak.r = append(weak.x, x), append(weak.y, *rec.Value), append(weak.r, 7)
		}
	}
	c.series = nonEmpty(band, meets, fails, weak)
	c.rules = []rule{{v: objective, color: colObjective}}
	c.extra = []legendItem{{name: "objective", color: colObjective, kind: kindDashed, width: 1.5}}
	if len(c.series) == 0 {
		c.notes = []string{"no step measured this SLO"}
	}
	return c
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
