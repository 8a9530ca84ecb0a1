package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/diperf/diperf/internal/stats"
)

func TestBinomial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		p    float64
	}{
		{"rare failures", 100_000, 0.001}, // by skips, n·p = 100
		{"few calls", 50, 0.3},            // by skips
		{"mostly failing", 1000, 0.9},     // by symmetry
		{"large", 1_000_000, 0.05},        // normal approximation
	}
	for _, tt := range tests {
		r := rand.New(rand.NewPCG(3, 4))
		const draws = 4000
		var sum, ss float64
		for range draws {
			k := float64(binomial(r, tt.n, tt.p))
			sum += k
			ss += k * k
		}
		m := sum / draws
		v := ss/draws - m*m
		wantM, wantV := float64(tt.n)*tt.p, float64(tt.n)*tt.p*(1-tt.p)
		if math.Abs(m-wantM) > 4*math.Sqrt(wantV/draws) || math.Abs(v/wantV-1) > 0.1 {
			t.Errorf("%s: mean %g var %g, want %g and %g", tt.name, m, v, wantM, wantV)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	if binomial(r, 10, 0) != 0 || binomial(r, 10, 1) != 10 || binomial(r, 0, 0.5) != 0 {
		t.Error("degenerate binomials")
	}
}

func TestSubsample(t *testing.T) {
	t.Parallel()
	values := make([]float64, 1000)
	for i := range values {
		values[i] = float64(i)
	}
	if got := subsample(values, 1000, newPCG(1, 1, 0)); &got[0] != &values[0] {
		t.Error("a short enough slice was copied")
	}
	s1 := subsample(values, 100, newPCG(1, 1, 0))
	s2 := subsample(values, 100, newPCG(1, 1, 0))
	if len(s1) != 100 || !slices.Equal(s1, s2) {
		t.Fatalf("subsample of 100: %d values, reproducible %v", len(s1), slices.Equal(s1, s2))
	}
	if len(slices.Compact(slices.Sorted(slices.Values(s1)))) != 100 {
		t.Error("subsample drew a value twice")
	}
	for i, v := range values {
		if v != float64(i) {
			t.Fatal("subsample modified its input")
		}
	}
}

func TestResampleMedian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		lo   int // window tried first, relative to the median index
		hi   int
	}{
		{"odd", 101, -5, 5},           // a window that mostly holds the median
		{"even", 1000, -20, 20},       // likewise
		{"window misses", 1000, 1, 2}, // the median is seldom there: redrawn in full
		{"tiny", 3, 0, 0},             // a single index
	}
	for _, tt := range tests {
		sorted := make([]float64, tt.n)
		for i := range sorted {
			sorted[i] = float64(i / 3) // with ties
		}
		k := stats.MedianIndex(tt.n)
		for seed := range uint64(20) {
			// The draws, made by hand.
			r := newPCG(seed, 9, 0)
			idx := make([]int, 0, tt.n+1)
			for len(idx) < tt.n {
				i1, i2 := randIndexPair(r, tt.n)
				idx = append(idx, i1, i2)
			}
			slices.Sort(idx[:tt.n])
			want := idx[:tt.n][k]

			r = newPCG(seed, 9, 0)
			saved := *r
			j, _, ok := medianIndexOfDraws(r, tt.n, k, max(k+tt.lo, 0), min(k+tt.hi, tt.n-1), nil)
			if !ok {
				*r = saved
				j, _, ok = medianIndexOfDraws(r, tt.n, k, 0, tt.n-1, nil)
			}
			if !ok || j != want {
				t.Fatalf("%s seed %d: median index %d (ok %v), want %d", tt.name, seed, j, ok, want)
			}
			if got, _ := resampleMedian(newPCG(seed, 9, 0), sorted, nil); got != sorted[want] {
				t.Fatalf("%s seed %d: resampleMedian %g, want %g", tt.name, seed, got, sorted[want])
			}
		}
	}
}
