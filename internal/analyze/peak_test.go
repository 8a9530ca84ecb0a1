package analyze

import (
	"testing"
)

func TestPeakWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		testers  []Tester
		from, to float64
		n        int
	}{
		// No testers: no window.
		{"none", nil, 0, 0, 0},
		// One tester: its whole lifetime.
		{"single", []Tester{tester(0, 1, 5)}, 1, 5, 1},
		// Two overlapping testers: their overlap.
		{"overlap", []Tester{tester(0, 0, 10), tester(1, 5, 15)}, 5, 10, 2},
		// All three testers overlap in [4, 6].
		{"staggered", []Tester{tester(0, 0, 10), tester(1, 2, 8), tester(2, 4, 6)}, 4, 6, 3},
		// Two windows with two testers: the longer one, [5, 9], wins.
		{"longest", []Tester{tester(0, 0, 10), tester(1, 1, 3), tester(2, 5, 9)}, 5, 9, 2},
		// Two equally long windows: the earlier one wins.
		{"tie", []Tester{tester(0, 0, 10), tester(1, 1, 3), tester(2, 5, 7)}, 1, 3, 2},
		// Lifetimes that touch do not overlap: two windows of one tester.
		{"touching", []Tester{tester(0, 0, 5), tester(1, 5, 10)}, 0, 5, 1},
		// A tester replacing another changes the set: two windows of 4 s.
		{"relay", []Tester{tester(0, 0, 10), tester(1, 0, 4), tester(2, 4, 8)}, 0, 4, 2},
		// A zero-length tester does not make a peak.
		{"zero length", []Tester{tester(0, 0, 10), tester(1, 3, 3)}, 0, 10, 1},
		// Only zero-length testers: the earliest instant.
		{"all zero length", []Tester{tester(0, 3, 3), tester(1, 3, 3), tester(2, 4, 4)}, 3, 3, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, n := peakWindow(lifetimes(tc.testers))
			want := window{}
			if tc.n > 0 {
				want = window{at(tc.from), at(tc.to)}
			}
			if w != want || n != tc.n {
				t.Errorf("got [%d, %d] × %d, want [%d, %d] × %d",
					w.start-t0, w.end-t0, n, want.start-t0, want.end-t0, tc.n)
			}
		})
	}
}

func TestJain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		xs   []int
		want float64
	}{
		{"equal counts", []int{7, 7, 7}, 1},     // perfectly fair
		{"one of two served", []int{1, 0}, 0.5}, // 1/n
		{"single tester", []int{5}, 1},          // trivially fair
		{"none", nil, 0},                        // no testers in the window
		{"all zero", []int{0, 0}, 0},            // nothing completed
		{"1,2,3", []int{1, 2, 3}, 36.0 / 42},    // (6)²/(3·14)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := jain(tc.xs); !near(got, tc.want) {
				t.Errorf("jain(%v) = %v, want %v", tc.xs, got, tc.want)
			}
		})
	}
}
