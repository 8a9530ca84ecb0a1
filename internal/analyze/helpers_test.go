package analyze

import (
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// t0 is an arbitrary global origin for hand-made runs.
const t0 = int64(1_700_000_000) * int64(time.Second)

// at returns the global time s seconds after t0.
func at(s float64) int64 { return t0 + int64(math.Round(s*1e9)) }

// call builds a call of tester i over [from, to) seconds after t0.
func call(i int32, from, to float64, st sample.Status) sample.Call {
	return sample.Call{Tester: i, Start: at(from), End: at(to), Status: st}
}

// tester builds tester i active over [from, to] seconds after t0.
func tester(i int, from, to float64) Tester {
	return Tester{Index: i, ID: "h:" + string(rune('a'+i)), Host: "h", Start: at(from), End: at(to)}
}

// mustCompute runs Compute and fails the test on error.
func mustCompute(t *testing.T, q time.Duration, testers []Tester, calls []sample.Call) *Result {
	t.Helper()
	r, err := Compute(&Input{Name: "t", Quantum: q, Planned: len(testers), Calls: calls, Testers: testers})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// near reports whether a and b agree within 1e-9.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
