package analyze

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortInt64(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	gen := func(n int, f func() int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = f()
		}
		return out
	}
	tests := []struct {
		name string
		in   []int64
	}{
		{"short", gen(100, func() int64 { return rng.Int64N(1000) })},                   // slices.Sort path
		{"times", gen(5000, func() int64 { return t0 + rng.Int64N(1e13) })},             // large offsets
		{"narrow", gen(5000, func() int64 { return t0 + rng.Int64N(3) })},               // one digit varies
		{"equal", gen(5000, func() int64 { return 42 })},                                // nothing to do
		{"signed", gen(5000, func() int64 { return rng.Int64() - math.MaxInt64/2 })},    // negatives, full width
		{"extremes", append(gen(2000, rng.Int64), math.MinInt64, math.MaxInt64, 0, -1)}, // the whole range
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := slices.Clone(tc.in)
			slices.Sort(want)
			sortInt64(tc.in, nil)
			if !slices.Equal(tc.in, want) {
				t.Error("not sorted")
			}
		})
	}
}
