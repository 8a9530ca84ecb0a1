package threshold

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/diperf/diperf/internal/experiment"
)

// Format writes one line per result: PASS or FAIL, the threshold, the
// value observed.
func Format(w io.Writer, rs []Result) error {
	for _, r := range rs {
		verdict := "PASS"
		if !r.Passed {
			verdict = "FAIL"
		}
		if _, err := fmt.Fprintf(w, "%s  %s  (observed %s)\n", verdict, r.Name, r.ObservedText()); err != nil {
			return err
		}
	}
	return nil
}

// ObservedText is the observed value as Format and the JUnit report give
// it: the metric's unit where it has one, "no data" when there were none.
func (r Result) ObservedText() string {
	if r.Observed == nil {
		return "no data"
	}
	s := formatValue(*r.Observed)
	if experiment.PercentMetric(r.Metric) {
		s += "%"
	}
	return s
}

// formatValue writes v rounded to 3 decimals, without trailing zeros.
func formatValue(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}
