package stats

import (
	"math"
	"slices"
)

// The bounds of a 95% bootstrap interval, as per-mille quantiles of the
// resampled estimates.
const (
	lowPerMille  = 25  // 2.5%
	highPerMille = 975 // 97.5%
)

// Interval is an estimate and its 95% confidence interval. The JSON names
// are part of what users read (`diperf predict --json`).
type Interval struct {
	Value float64 `json:"value"` // the estimate from the data
	Low   float64 `json:"low"`   // lower bound
	High  float64 `json:"high"`  // upper bound
}

// BootstrapInterval returns value with the 95% percentile-bootstrap
// interval of resampled, the estimates of the resamples: their 2.5th and
// 97.5th percentiles by nearest rank (see the package documentation). It
// sorts resampled. With no resamples the interval is the value alone. The
// bounds need not hold value: a percentile interval of a skewed estimate
// may lie to one side of it.
func BootstrapInterval(value float64, resampled []float64) Interval {
	iv := Interval{Value: value, Low: value, High: value}
	n := len(resampled)
	if n == 0 {
		return iv
	}
	slices.Sort(resampled)
	iv.Low = resampled[quantileIndex(n, lowPerMille, 1000)]
	iv.High = resampled[quantileIndex(n, highPerMille, 1000)]
	return iv
}

// Cover returns iv widened, if need be, to hold x as well; iv itself when
// x is NaN.
func (iv Interval) Cover(x float64) Interval {
	if math.IsNaN(x) {
		return iv
	}
	iv.Low, iv.High = math.Min(iv.Low, x), math.Max(iv.High, x)
	return iv
}
