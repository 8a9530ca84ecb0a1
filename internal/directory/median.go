package directory

import (
	"slices"
	"time"
)

// median folds results of one src, dst and kind into one row at time at:
// the median of each figure (the mean of the middle two of an even
// count), the highest busy and missed counters, and MedianOf the count.
func median(rs []Result, at time.Time) Result {
	m := Result{Src: rs[0].Src, Dst: rs[0].Dst, Kind: rs[0].Kind, MeasuredAt: at, MedianOf: int64(len(rs))}
	for _, f := range []struct {
		dst *float64
		get func(Result) float64
	}{
		{&m.BandwidthBps, func(r Result) float64 { return r.BandwidthBps }},
		{&m.BandwidthAfterSlowStartBps, func(r Result) float64 { return r.BandwidthAfterSlowStartBps }},
		{&m.LatencyMs, func(r Result) float64 { return r.LatencyMs }},
		{&m.LatencyP50Ms, func(r Result) float64 { return r.LatencyP50Ms }},
		{&m.LatencyP90Ms, func(r Result) float64 { return r.LatencyP90Ms }},
		{&m.LatencyP99Ms, func(r Result) float64 { return r.LatencyP99Ms }},
		{&m.TestTimeS, func(r Result) float64 { return r.TestTimeS }},
	} {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f.get(r)
		}
		slices.Sort(v)
		n := len(v)
		*f.dst = v[(n-1)/2]/2 + v[n/2]/2 // not (a+b)/2: no overflow
	}
	for _, r := range rs {
		m.Busy, m.Missed = max(m.Busy, r.Busy), max(m.Missed, r.Missed)
	}
	return m
}
