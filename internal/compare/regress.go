package compare

import (
	"fmt"
	"strings"
)

// Regression kinds that --fail-if names.
const (
	// FailSlower: B's median response time is significantly higher than
	// A's, or its throughput at matched load significantly lower (the
	// verdicts' 95% bootstrap intervals of B − A exclude zero).
	FailSlower = "slower"
	// FailErrors: B's error rate is significantly higher than A's (the
	// 95% interval of B − A from the parametric bootstrap of both rates,
	// rateDiffCI, lies above zero).
	FailErrors = "errors"
)

// ParseFailIf reads a comma-separated list of regression kinds, e.g.
// "slower,errors".
func ParseFailIf(s string) ([]string, error) {
	var kinds []string
	for k := range strings.SplitSeq(s, ",") {
		switch k = strings.TrimSpace(k); k {
		case FailSlower, FailErrors:
			kinds = append(kinds, k)
		default:
			return nil, fmt.Errorf("want %s, %s or both comma-separated, got %q", FailSlower, FailErrors, k)
		}
	}
	return kinds, nil
}

// Regressions returns why B regressed against A in each of kinds, one
// reason per finding (none: no significant regression of those kinds).
func (c *Comparison) Regressions(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		switch k {
		case FailSlower:
			if m := c.Metric(RTMedian); worse(m, +1) {
				out = append(out, c.Verdicts.ResponseTime)
			}
			if m := c.Metric(ThroughputMatched); worse(m, -1) {
				out = append(out, c.Verdicts.Throughput)
			}
		case FailErrors:
			if m := c.Metric(ErrorRate); worse(m, +1) {
				out = append(out, fmt.Sprintf("B has a higher error rate: %.3g%% against %.3g%% (%s)", m.B, m.A, ciText(m)))
			}
		}
	}
	return out
}

// worse reports whether m differs significantly in direction sign (+1:
// B higher is worse, −1: B lower is).
func worse(m *Metric, sign float64) bool {
	return m != nil && m.Significant != nil && *m.Significant && m.Diff*sign > 0
}
