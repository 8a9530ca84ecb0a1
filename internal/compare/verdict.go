package compare

import (
	"fmt"
	"math"
)

// rtVerdict says whether B responds faster or slower than A, from the
// median response time metric.
func rtVerdict(m *Metric) string {
	switch {
	case m.Significant == nil:
		return "not enough successful calls in each run to compare response times"
	case !*m.Significant:
		return "no change detected in median response time (" + changeText(m) + "; " + ciText(m) + ")" + mdcText(m)
	case m.Diff < 0:
		return "B is faster: median response time " + amountText(m, "lower") + " (" + ciText(m) + ")"
	default:
		return "B is slower: median response time " + amountText(m, "higher") + " (" + ciText(m) + ")"
	}
}

// throughputVerdict says whether B serves more or fewer calls per second
// than A at the same load, from the matched-load throughput metric. When
// the interval includes zero it says how large a change the runs could
// have detected, not that there was none.
func throughputVerdict(m *Metric) string {
	switch {
	case m.Significant == nil:
		return fmt.Sprintf("not enough quanta at a load both runs reached (at least %d, got %d) to compare throughput", minSamples, deref(m.Quanta))
	case !*m.Significant:
		return "no change detected in throughput at matched load (" + changeText(m) + "; " + ciText(m) + ")" + mdcText(m)
	case m.Diff > 0:
		return "B has higher throughput at matched load: " + amountText(m, "higher") + " (" + ciText(m) + ")"
	default:
		return "B has lower throughput at matched load: " + amountText(m, "lower") + " (" + ciText(m) + ")"
	}
}

// mdcText says how large a change the runs could have detected.
func mdcText(m *Metric) string {
	if m.MDCPct == nil {
		return ""
	}
	s := fmt.Sprintf("; these runs could detect a change of ±%.1f%% (95%%)", *m.MDCPct)
	if m.RelPct != nil && math.Abs(*m.RelPct) < *m.MDCPct {
		s += ", the observed " + changeText(m) + " is below that"
	}
	return s
}

// deref is *p, or 0 for nil.
func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// amountText is the size of a difference followed by way: "12.3% lower",
// or in the metric's unit when A is zero.
func amountText(m *Metric, way string) string {
	if m.RelPct != nil {
		return fmt.Sprintf("%.1f%% %s", math.Abs(*m.RelPct), way)
	}
	return fmt.Sprintf("%s %s %s", num(math.Abs(m.Diff)), m.Unit, way)
}

// changeText is a signed difference: "+1.2%", or in the metric's unit when
// A is zero.
func changeText(m *Metric) string {
	if m.RelPct != nil {
		return fmt.Sprintf("%+.1f%%", *m.RelPct)
	}
	return signed(m.Diff) + " " + m.Unit
}

// ciText describes the interval of B − A, in the metric's unit and, when
// A is not zero, relative to A.
func ciText(m *Metric) string {
	s := fmt.Sprintf("95%% CI of B−A %s to %s %s", signed(*m.CILow), signed(*m.CIHigh), m.Unit)
	if m.A != 0 {
		s += fmt.Sprintf(", %+.1f%% to %+.1f%%", 100**m.CILow/m.A, 100**m.CIHigh/m.A)
	}
	return s
}
