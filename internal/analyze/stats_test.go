package analyze

import (
	"math"
	"testing"

	"github.com/diperf/diperf/internal/stats"
)

func TestRTStats(t *testing.T) {
	t.Parallel()
	seq := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(i+1) * nsPerMs
		}
		return out
	}
	tests := []struct {
		name   string
		in     []int64 // ns, ascending
		want   RTStats
		stddev float64
	}{
		// 1..100 ms: ranks 50, 90 and 99 give the values themselves.
		{"1..100", seq(100), RTStats{N: 100, Min: 1, Median: 50, Mean: 50.5, P90: 90, P99: 99, Max: 100}, math.Sqrt(9999.0 / 12)},
		// A single value is every statistic.
		{"one", seq(1), RTStats{N: 1, Min: 1, Median: 1, Mean: 1, P90: 1, P99: 1, Max: 1}, 0},
		// Even count: the median is the lower middle value (rank ⌈n/2⌉).
		{"two", seq(2), RTStats{N: 2, Min: 1, Median: 1, Mean: 1.5, P90: 2, P99: 2, Max: 2}, 0.5},
		// 1..10 ms: p90 is rank 9, p99 rank 10.
		{"1..10", seq(10), RTStats{N: 10, Min: 1, Median: 5, Mean: 5.5, P90: 9, P99: 10, Max: 10}, math.Sqrt(99.0 / 12)},
		// Empty set: all zero.
		{"empty", nil, RTStats{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var m stats.Moments
			h := newHist()
			for _, v := range tc.in {
				m.Add(v)
				record(h, v)
			}
			got := rtStats(m, h)
			// Exact: the count, minimum, mean, maximum and deviation.
			// Within the histogram's 1%: the percentiles.
			if got.N != tc.want.N || got.Min != tc.want.Min || math.Abs(got.Mean-tc.want.Mean) > 1e-9 ||
				got.Max != tc.want.Max || math.Abs(got.StdDev-tc.stddev) > 1e-6 {
				t.Errorf("got %+v, want %+v stddev %v", got, tc.want, tc.stddev)
			}
			for _, p := range [][2]float64{{got.Median, tc.want.Median}, {got.P90, tc.want.P90}, {got.P99, tc.want.P99}} {
				if math.Abs(p[0]-p[1]) > 0.01*p[1] {
					t.Errorf("percentile %v, want %v within 1%% (got %+v)", p[0], p[1], got)
				}
			}
		})
	}
}

func TestFloatStats(t *testing.T) {
	t.Parallel()
	got := floatStats([]float64{4, 1, 3, 2}, "calls/s")
	want := Stats{Unit: "calls/s", Min: 1, Median: 2, Mean: 2.5, Max: 4, StdDev: math.Sqrt(1.25)}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
