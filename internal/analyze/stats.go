package analyze

import (
	"slices"

	"github.com/diperf/diperf/internal/stats"
)

// nsPerMs converts nanoseconds to milliseconds.
const nsPerMs = 1e6

// summaryRT converts response-time statistics to the summary's row.
func summaryRT(s RTStats) RTSummary {
	return RTSummary{
		Min: s.Min, Median: s.Median, Mean: s.Mean, Max: s.Max,
		StdDev: s.StdDev, P90: s.P90, P99: s.P99,
	}
}

// floatStats returns the Min/Med/Aver/Max/StdDev row of values (median by
// nearest rank, population standard deviation); values is not modified.
func floatStats(values []float64, unit string) Stats {
	st := Stats{Unit: unit}
	if len(values) == 0 {
		return st
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	st.Min = sorted[0]
	st.Max = sorted[len(sorted)-1]
	st.Median = stats.Percentile(sorted, 50)
	st.Mean, st.StdDev = stats.MeanStdDev(sorted)
	return st
}
