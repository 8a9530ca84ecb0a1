package analyze

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// rampPoints samples a ramp of loads 1..top and back down, reps quanta per
// level, with throughput f(L) and ±noise relative uniform noise.
func rampPoints(top, reps int, noise float64, f func(float64) float64) (loads, thr []float64) {
	rng := rand.New(rand.NewPCG(7, uint64(top)))
	levels := make([]int, 0, 2*top)
	for l := 1; l <= top; l++ {
		levels = append(levels, l)
	}
	for l := top - 1; l >= 1; l-- {
		levels = append(levels, l)
	}
	for _, l := range levels {
		for range reps {
			load := float64(l) + (rng.Float64()-0.5)*0.2
			loads = append(loads, load)
			thr = append(thr, f(load)*(1+noise*(2*rng.Float64()-1)))
		}
	}
	return loads, thr
}

func TestSaturation(t *testing.T) {
	t.Parallel()
	knee := func(c, s float64) func(float64) float64 {
		return func(l float64) float64 { return math.Min(l, c) / s }
	}
	tests := []struct {
		name      string
		top       int
		f         func(float64) float64
		saturated bool
		load, thr float64 // expected knee and plateau when saturated
	}{
		// C = 8 concurrent, S = 50 ms: X = 160·min(L, 8)/8.
		{"knee at 8", 20, knee(8, 0.05), true, 8, 160},
		// C = 32, S = 0.1 s: plateau at 320 calls/s.
		{"knee at 32", 64, knee(32, 0.1), true, 32, 320},
		// A straight line never saturates.
		{"linear", 20, func(l float64) float64 { return 20 * l }, false, 20, 0},
		// A knee beyond the highest load is not seen.
		{"knee out of reach", 20, knee(30, 0.05), false, 20, 0},
		// A knee with too few plateau points is not trusted.
		{"knee at the top", 20, knee(19, 0.05), false, 20, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			loads, thr := rampPoints(tc.top, 5, 0.05, tc.f)
			got := saturation(points(loads, thr))
			t.Logf("%+v", got)
			if got.Saturated != tc.saturated {
				t.Fatalf("saturated = %v, want %v (%+v)", got.Saturated, tc.saturated, got)
			}
			if !tc.saturated {
				if math.Abs(got.Load-tc.load) > 0.2 {
					t.Errorf("highest load %v, want about %v", got.Load, tc.load)
				}
				return
			}
			if math.Abs(got.Load-tc.load) > 0.1*tc.load {
				t.Errorf("knee %v, want %v ±10%%", got.Load, tc.load)
			}
			if math.Abs(got.Throughput-tc.thr) > 0.03*tc.thr {
				t.Errorf("plateau %v, want %v ±3%%", got.Throughput, tc.thr)
			}
		})
	}
}

// points pairs loads and throughputs, with no response times known.
func points(loads, thr []float64) []loadPoint {
	pts := make([]loadPoint, len(loads))
	for i := range loads {
		pts[i] = loadPoint{l: loads[i], x: thr[i]}
	}
	return pts
}

// TestSaturationLittlesLaw checks the knee taken from the plateau and the
// light-load response time (N* = X*·R0) on data whose rising branch is too
// short and too biased for the fitted knee alone: the quanta of a fast ramp
// see completions lag behind the load.
func TestSaturationLittlesLaw(t *testing.T) {
	t.Parallel()
	const c, s, r0 = 4, 0.2, 0.21 // 4 slots of 200 ms; calls take 210 ms at light load
	pts := []loadPoint{
		{l: 1.5, x: 6, rt: 210, n: 6},   // ramp-up, completions lagging the load
		{l: 3.5, x: 15, rt: 211, n: 15}, // last quantum below the knee
		{l: 2.6, x: 12, rt: 210, n: 12}, // ramp-down, completions trailing
		{l: 0.6, x: 4, rt: 209, n: 4},
	}
	for _, l := range []float64{5.5, 7.5, 9.5, 10, 10, 10, 10, 10, 10, 10, 8.9, 6.8, 4.8} {
		pts = append(pts, loadPoint{l: l, x: c / s, rt: 1000 * l / (c / s), n: 20})
	}
	got := saturation(pts)
	if want := c / s * r0; !got.Saturated || math.Abs(got.Load-want) > 0.03*want || got.Throughput != c/s {
		t.Fatalf("got %+v, want saturated at load %.2f, %v calls/s", got, want, c/s)
	}
}

func TestSaturationDegenerate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		loads, thr []float64
		want       Saturation
	}{
		// No points at all.
		{"empty", nil, nil, Saturation{}},
		// Zero load everywhere: no fit, highest load 0.
		{"zero load", []float64{0, 0}, []float64{0, 0}, Saturation{Load: 0, Throughput: 0}},
		// One point: not saturated, that point.
		{"one point", []float64{3}, []float64{30}, Saturation{Load: 3, Throughput: 30}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := saturation(points(tc.loads, tc.thr)); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSaturationEndToEnd simulates closed-loop testers against a service
// that serves C calls at once in S each, ramping 1..20 testers up and down,
// and checks the saturation point found through Compute.
func TestSaturationEndToEnd(t *testing.T) {
	t.Parallel()
	const n, c, s, step = 20, 8.0, 0.05, 5.0
	testers := make([]Tester, n)
	for i := range testers {
		testers[i] = tester(i, step*float64(i), step*float64(2*n-i))
	}
	active := func(x float64) int {
		k := 0
		for _, tr := range testers {
			if tr.Start <= at(x) && at(x) < tr.End {
				k++
			}
		}
		return k
	}
	var calls []sample.Call
	for i, tr := range testers {
		for x := float64(tr.Start-t0) / 1e9; ; {
			d := s * math.Max(1, float64(active(x))/c)
			if at(x+d) > tr.End {
				break
			}
			calls = append(calls, call(int32(i), x, x+d, sample.OK))
			x += d
		}
	}
	for _, q := range []time.Duration{time.Second, 10 * time.Millisecond} {
		checkEndToEnd(t, mustCompute(t, q, testers, calls), n, c, s, step)
	}
}

// checkEndToEnd checks the saturation, peak and fairness of
// TestSaturationEndToEnd's run analyzed at some quantum: at 10 ms, quanta
// hold one or two calls and the plateau must still come out right.
func checkEndToEnd(t *testing.T, r *Result, n int, c, s, step float64) {
	t.Helper()
	sat := r.Summary.Saturation
	var b strings.Builder
	if err := FormatSummary(&b, &r.Summary); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	if !sat.Saturated || math.Abs(sat.Load-c) > 0.1*c || math.Abs(sat.Throughput-c/s) > 0.03*c/s {
		t.Errorf("quantum %v s: saturation %+v, want about load %v, %v calls/s", r.Summary.QuantumS, sat, c, c/s)
	}
	if p := r.Summary.Peak; p.Testers != n || p.StartS != step*float64(n-1) || p.EndS != step*float64(n+1) {
		t.Errorf("peak %+v", p)
	}
	if j := r.Summary.Fairness.Jain; j < 0.99 {
		t.Errorf("jain %v", j)
	}
}
