package threshold

import (
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/sample"
)

// t0 is the hand-made run's origin, global Unix ns.
const t0 = int64(1_700_000_000) * int64(time.Second)

// at is the global time s seconds after t0.
func at(s float64) int64 { return t0 + int64(math.Round(s*1e9)) }

// handRun is a 20 s run at a 1 s quantum: tester 0 from 0 to 20 s, 500
// calls of 10 ms in the first 10 s then one of 100 ms every 0.1 s;
// tester 1 from 10 to 20 s (so the peak window is 10-20 s), a 100 ms call
// every 0.1 s and 10 timeouts in its last 5 s.
func handRun(t *testing.T) *analyze.Result {
	t.Helper()
	res, err := analyze.Compute(handInput())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// handInput is handRun's input.
func handInput() *analyze.Input {
	var calls []sample.Call
	add := func(tester int32, from, d float64, st sample.Status) {
		calls = append(calls, sample.Call{Tester: tester, Start: at(from), End: at(from + d), Status: st})
	}
	for i := range 500 {
		add(0, float64(i)*0.02, 0.010, sample.OK)
	}
	for i := range 99 {
		add(0, 10+float64(i)*0.1, 0.100, sample.OK)
		add(1, 10+float64(i)*0.1, 0.100, sample.OK)
	}
	for i := range 10 {
		add(1, 15.05+float64(i)*0.4, 0.2, sample.Timeout)
	}
	testers := []analyze.Tester{
		{Index: 0, ID: "h:1", Host: "h", Start: at(0), End: at(20)},
		{Index: 1, ID: "h:2", Host: "h", Start: at(10), End: at(20)},
	}
	return &analyze.Input{Name: "hand", Quantum: time.Second, Planned: 2, Calls: calls, Testers: testers}
}

// Each window reads its own quanta; every metric, each way.
func TestEvaluateWindows(t *testing.T) {
	t.Parallel()
	res := handRun(t)
	if p := res.Summary.Peak; p.StartS != 10 || p.EndS != 20 {
		t.Fatalf("peak window %v-%v s, want 10-20 s", p.StartS, p.EndS)
	}
	tests := []struct {
		check, over string
		want        float64 // observed, within 1.5% (histogram percentiles)
		passed      bool
	}{
		{"p50_ms < 50", "", 10, true},          // 500 fast of 698
		{"median_ms < 50", "peak", 100, false}, // only 100 ms calls in 10-20 s
		{"p99_ms < 50", "last 5s", 100, false},
		{"p99.9_ms <= 100", "", 100, true},
		{"max_ms < 100", "", 100, false}, // exact: 100 ms is not below 100
		{"mean_ms < 40", "", (500*10 + 198*100) / 698.0, true},
		{"error_rate < 5%", "", 100 * 10 / 708.0, true},
		{"error_rate < 5%", "last 5s", 100 * 10 / 110.0, false},
		{"throughput > 30", "", 698 / 20.0, true},
		{"throughput > 30", "last 5s", 100 / 5.0, false},
		{"throughput >= 19.8", "peak", 198 / 10.0, true},
		{"load > 1.5", "peak", 1.98 + 0.2, true}, // two testers ~99% of the time in a call, and 10 timeouts of 0.2 s
		{"fairness.jain > 0.99", "", 1, true},
		{"saturation.load > 1000", "", res.Summary.Saturation.Load, false},
		{"saturation.throughput == " + formatValue(res.Summary.Saturation.Throughput), "", res.Summary.Saturation.Throughput, true},
	}
	var ths []experiment.Threshold
	for _, tt := range tests {
		ths = append(ths, experiment.Threshold{Check: tt.check, Over: tt.over})
	}
	got, err := Evaluate(ths, res)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		r := got[i]
		if r.Observed == nil || math.Abs(*r.Observed-tt.want) > 0.015*math.Abs(tt.want)+1e-9 || r.Passed != tt.passed {
			t.Errorf("%s over %q: %+v observed %v; want %v, passed %v", tt.check, tt.over, r, ptr(r.Observed), tt.want, tt.passed)
		}
	}
	if got[2].Name != "p99_ms < 50 over last 5s" || got[2].Window != "last 5s" || got[0].Name != "p50_ms < 50" || got[1].Metric != "p50_ms" {
		t.Errorf("names %q, %q, window %q, metric %q", got[0].Name, got[2].Name, got[2].Window, got[1].Metric)
	}
	if Failures(got) == 0 || Failures(got[:1]) != 0 {
		t.Error("Failures disagrees with the results")
	}
}

// ptr reads an observed value for a message.
func ptr(v *float64) any {
	if v == nil {
		return "nil"
	}
	return *v
}

// A window with no data for its metric fails, observing nothing.
func TestEvaluateNoData(t *testing.T) {
	t.Parallel()
	calls := []sample.Call{{Tester: 0, Start: at(0), End: at(0.5), Status: sample.Failed}}
	res, err := analyze.Compute(&analyze.Input{Name: "x", Quantum: time.Second, Planned: 1, Calls: calls,
		Testers: []analyze.Tester{{ID: "h:1", Start: at(0), End: at(2)}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Evaluate([]experiment.Threshold{{Check: "p99_ms < 250"}, {Check: "error_rate <= 100"}}, res)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Observed != nil || got[0].Passed || got[0].ObservedText() != "no data" {
		t.Errorf("p99 of no successful call: %+v", got[0])
	}
	if got[1].Observed == nil || *got[1].Observed != 100 || !got[1].Passed {
		t.Errorf("error rate of one failed call: %+v", got[1])
	}
	if _, err := Evaluate([]experiment.Threshold{{Check: "p99 < 1"}}, res); err == nil {
		t.Error("an unknown metric evaluated")
	}
}
