package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSelectK(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]float64, 1001)
	for i := range random {
		random[i] = r.NormFloat64()
	}
	counts := make([]float64, 500)
	for i := range counts {
		counts[i] = float64(r.IntN(5))
	}
	tests := []struct {
		name string
		x    []float64
	}{
		{"one value", []float64{3}},                          // nothing to partition
		{"two values", []float64{2, 1}},                      // the lower middle is the median
		{"all equal", []float64{7, 7, 7, 7, 7, 7}},           // a single three-way pass
		{"sorted", []float64{1, 2, 3, 4, 5, 6, 7, 8}},        // median-of-three keeps it linear
		{"reversed", []float64{9, 8, 7, 6, 5, 4, 3, 2, 1}},   // likewise
		{"random", random},                                   // continuous values
		{"many duplicates", counts},                          // throughputs are counts
		{"negative and zero", []float64{0, -1, -0.5, 2, -3}}, // any sign
	}
	for _, tt := range tests {
		sorted := slices.Sorted(slices.Values(tt.x))
		for _, k := range []int{0, len(tt.x) / 3, MedianIndex(len(tt.x)), len(tt.x) - 1} {
			if got := SelectK(slices.Clone(tt.x), k); got != sorted[k] {
				t.Errorf("%s: SelectK(%d) = %g, want %g", tt.name, k, got, sorted[k])
			}
		}
	}
}

func TestPercentileIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, pct, want int
	}{
		{1, 50, 0},    // a single value is every percentile
		{2, 50, 0},    // the lower middle
		{3, 50, 1},    // the middle
		{100, 90, 89}, // rank 90
		{100, 99, 98}, // rank 99
		{10, 99, 9},   // rounded up to the last
		{10, 0, 0},    // rank 0 is raised to the first
		{10, 100, 9},  // the maximum
	}
	for _, tt := range tests {
		if got := PercentileIndex(tt.n, tt.pct); got != tt.want {
			t.Errorf("PercentileIndex(%d, %d) = %d, want %d", tt.n, tt.pct, got, tt.want)
		}
	}
}

func TestPercentileAndMedian(t *testing.T) {
	t.Parallel()
	seq := make([]float64, 100)
	for i := range seq {
		seq[i] = float64(i + 1)
	}
	tests := []struct {
		name   string
		sorted []float64
		p50    float64 // Percentile(50), and Median of the values reversed
		p90    float64
		p99    float64
	}{
		// 1..100: ranks 50, 90 and 99 give the values themselves
		{"1..100", seq, 50, 90, 99},
		// one value is every percentile
		{"one", []float64{7}, 7, 7, 7},
		// even count: the median is the lower middle value
		{"two", []float64{1, 2}, 1, 2, 2},
		// 1..10: p90 is rank 9, p99 rank 10
		{"1..10", seq[:10], 5, 9, 10},
		// nothing: zero
		{"empty", nil, 0, 0, 0},
	}
	for _, tt := range tests {
		got := [3]float64{Percentile(tt.sorted, 50), Percentile(tt.sorted, 90), Percentile(tt.sorted, 99)}
		if got != [3]float64{tt.p50, tt.p90, tt.p99} {
			t.Errorf("%s: percentiles 50, 90, 99 = %v, want %v %v %v", tt.name, got, tt.p50, tt.p90, tt.p99)
		}
		rev := slices.Clone(tt.sorted)
		slices.Reverse(rev)
		before := slices.Clone(rev)
		if m := Median(rev); m != tt.p50 || !slices.Equal(rev, before) {
			t.Errorf("%s: Median = %g (input kept: %v), want %g", tt.name, m, slices.Equal(rev, before), tt.p50)
		}
	}
	if got := Percentile([]int64{3, 5, 8}, 50); got != 5 {
		t.Errorf("Percentile of int64 = %d, want 5", got)
	}
}

func TestBootstrapInterval(t *testing.T) {
	t.Parallel()
	desc := make([]float64, 1000)
	for i := range desc {
		desc[i] = float64(999 - i)
	}
	tests := []struct {
		name      string
		value     float64
		resampled []float64
		want      Interval
	}{
		// 0..999: the 25th and the 975th smallest, by nearest rank
		{"1000 resamples", 500, desc, Interval{500, 24, 974}},
		// 200 resamples (a model's refits): the 5th and the 195th
		{"200 resamples", 1, seqFrom(1, 200), Interval{1, 5, 195}},
		// two resamples: the lower and the upper, never a point between
		{"two", 10, []float64{11, 9}, Interval{10, 9, 11}},
		// a skewed estimate: the bounds need not hold the value
		{"one-sided", 0, []float64{1, 2, 3}, Interval{0, 1, 3}},
		// none: the value alone
		{"none", 4, nil, Interval{4, 4, 4}},
	}
	for _, tt := range tests {
		if got := BootstrapInterval(tt.value, tt.resampled); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// seqFrom returns lo, lo+1, …, hi.
func seqFrom(lo, hi int) []float64 {
	var v []float64
	for i := lo; i <= hi; i++ {
		v = append(v, float64(i))
	}
	return v
}

func TestCover(t *testing.T) {
	t.Parallel()
	iv := Interval{Value: 5, Low: 4, High: 6}
	tests := []struct {
		x    float64
		want Interval
	}{
		{5, iv},                    // inside: unchanged
		{2, Interval{5, 2, 6}},     // below: the low bound moves
		{9.5, Interval{5, 4, 9.5}}, // above: the high bound moves
		{math.NaN(), iv},           // not a number: unchanged
	}
	for _, tt := range tests {
		if got := iv.Cover(tt.x); got != tt.want {
			t.Errorf("Cover(%g) = %+v, want %+v", tt.x, got, tt.want)
		}
	}
}

// TestMeanStdDev checks the mean and the population standard deviation.
func TestMeanStdDev(t *testing.T) {
	t.Parallel()
	tests := []struct {
		values     []float64
		mean, sdev float64
	}{
		{nil, 0, 0},          // none
		{[]float64{3}, 3, 0}, // one
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, 2}, // divided by n: 2, not 2.14
	}
	for _, tt := range tests {
		m, s := MeanStdDev(tt.values)
		if m != tt.mean || s != tt.sdev || Mean(tt.values) != tt.mean {
			t.Errorf("MeanStdDev(%v) = %g, %g; want %g, %g", tt.values, m, s, tt.mean, tt.sdev)
		}
	}
	if m := Mean([]int64{1, 2}); m != 1.5 {
		t.Errorf("Mean of int64s = %g, want 1.5", m)
	}
}
