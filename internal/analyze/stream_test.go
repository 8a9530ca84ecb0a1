package analyze

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestBytesPerSecond checks the bytes per quantum and per second.
func TestBytesPerSecond(t *testing.T) {
	t.Parallel()
	calls := []sample.Call{call(0, 0, 0.1, sample.OK), call(0, 0.2, 0.3, sample.Failed), call(0, 0.5, 0.6, sample.OK)}
	calls[0].Bytes, calls[1].Bytes, calls[2].Bytes = 1000, 24, 3000
	r := mustCompute(t, 500*time.Millisecond, []Tester{tester(0, 0, 1)}, calls)
	// Quantum 0 (0-0.5 s) ends the first two calls, quantum 1 the third.
	if q := r.Quanta[0]; q.Bytes != 1024 || !near(q.BytesPerS, 2048) {
		t.Errorf("quantum 0: %d bytes, %v B/s; want 1024, 2048", q.Bytes, q.BytesPerS)
	}
	if q := r.Quanta[1]; q.Bytes != 3000 || !near(q.BytesPerS, 6000) {
		t.Errorf("quantum 1: %d bytes, %v B/s; want 3000, 6000", q.Bytes, q.BytesPerS)
	}
}

// TestFairness checks DiPerF's per-client fairness, normalized to 1 for an
// equal share: two testers side by side, one served twice as often.
func TestFairness(t *testing.T) {
	t.Parallel()
	var calls []sample.Call
	for i := range 10 {
		s := float64(i) / 10
		calls = append(calls, call(0, s, s+0.05, sample.OK))
		if i%2 == 0 {
			calls = append(calls, call(1, s, s+0.05, sample.OK))
		}
	}
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 1), tester(1, 0, 1)}, calls)
	// 15 calls: tester 0 got 10 (utilization 2/3), tester 1 got 5 (1/3); two
	// testers were active throughout, so the fair share is 1/2.
	for i, want := range []float64{4.0 / 3, 2.0 / 3} {
		c := r.Clients[i]
		if math.Abs(c.Whole.Fairness-want) > 1e-9 || math.Abs(c.Peak.Fairness-want) > 1e-9 {
			t.Errorf("tester %d: fairness whole %v peak %v, want %v", i, c.Whole.Fairness, c.Peak.Fairness, want)
		}
	}
}

// TestFairnessFollowsActiveTesters checks that a tester alone for half its
// life has a fair share of 1 then and 1/2 after: mean 1.5 testers.
func TestFairnessFollowsActiveTesters(t *testing.T) {
	t.Parallel()
	calls := []sample.Call{call(0, 0.1, 0.2, sample.OK), call(0, 1.1, 1.2, sample.OK), call(1, 1.3, 1.4, sample.OK)}
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 2), tester(1, 1, 2)}, calls)
	// Tester 0: 2 of the 3 calls while it ran, with 1.5 testers on average.
	if got, want := r.Clients[0].Whole.Fairness, 2.0/3*1.5; math.Abs(got-want) > 1e-6 {
		t.Errorf("fairness %v, want %v", got, want)
	}
}

// TestLoadMaxBackToBack checks that a tester's back-to-back calls count once
// towards the most in flight, and overlapping calls of one tester twice.
func TestLoadMaxBackToBack(t *testing.T) {
	t.Parallel()
	seq := []sample.Call{call(0, 0, 0.3004, sample.OK), call(0, 0.3004, 0.6, sample.OK), call(0, 0.6001, 0.9, sample.OK)}
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 1)}, seq)
	if got := r.Quanta[0].LoadMax; got != 1 {
		t.Errorf("back to back: max %d, want 1", got)
	}
	over := []sample.Call{call(0, 0, 0.5, sample.OK), call(0, 0.2, 0.9, sample.OK)}
	r = mustCompute(t, time.Second, []Tester{tester(0, 0, 1)}, over)
	if got := r.Quanta[0].LoadMax; got != 2 {
		t.Errorf("overlapping: max %d, want 2", got)
	}
}

// TestPercentiles checks the run's response-time distribution on 1..1000 ms.
func TestPercentiles(t *testing.T) {
	t.Parallel()
	var calls []sample.Call
	for i := 1; i <= 1000; i++ {
		calls = append(calls, call(int32(i%4), 0, float64(i)/1000, sample.OK))
	}
	r := mustCompute(t, time.Second, nil, calls)
	if len(r.Percentiles) != len(PercentileRanks) {
		t.Fatalf("%d percentiles, want %d", len(r.Percentiles), len(PercentileRanks))
	}
	for _, p := range r.Percentiles {
		want := math.Max(1, math.Round(p.P*10)) // the value of rank p·n/100, ms
		if math.Abs(p.Ms-want) > 0.01*want+1e-9 {
			t.Errorf("p%v = %v ms, want %v within 1%%", p.P, p.Ms, want)
		}
	}
}

// TestHistStoreBounded checks that packing histograms away when there are
// more quanta than live histograms changes nothing, whatever the order.
func TestHistStoreBounded(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	var calls []sample.Call
	for range 3000 {
		s := rng.Float64() * 20
		calls = append(calls, call(int32(rng.IntN(3)), s, s+rng.Float64()*0.2, sample.OK))
	}
	want := mustCompute(t, 10*time.Millisecond, nil, calls)
	a, err := NewAccumulator(Config{Name: "t", Quantum: 10 * time.Millisecond, Origin: EarliestStart(calls)})
	if err != nil {
		t.Fatal(err)
	}
	a.quanta.hists = newHistStore(3) // ~2,000 quanta through 3 live histograms
	for i := 0; i < len(calls); i += 500 {
		if err := a.Add(calls[i : i+500]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	for q := range want.Quanta {
		if !reflect.DeepEqual(got.Quanta[q].RT, want.Quanta[q].RT) {
			t.Fatalf("quantum %d: %+v, want %+v", q, got.Quanta[q].RT, want.Quanta[q].RT)
		}
	}
}

// TestParallelEqualsSerial checks that folding calls over several workers
// and merging them gives the serial result, extras and HTTP phases too.
func TestParallelEqualsSerial(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 9))
	var testers []Tester
	var calls []sample.Call
	for i := range 7 {
		testers = append(testers, tester(i, float64(i), 20+float64(i)))
		for s := float64(i); s < 20+float64(i); {
			d := 0.01 + 0.3*rng.Float64()
			st := sample.OK
			if rng.IntN(10) == 0 {
				st = sample.Failed
			}
			c := call(int32(i), s, s+d, st)
			c.Bytes = int64(rng.IntN(100))
			if rng.IntN(3) == 0 {
				c.Extras = []sample.Extra{{Key: "mb", Value: 0.1 * float64(rng.IntN(100))}}
				c.Phases = sample.Phases{Connect: int64(rng.IntN(2)) * 100e3, FirstByte: int64(rng.IntN(5e6))}
			}
			calls = append(calls, c)
			s += d + 0.001*float64(rng.IntN(3))
		}
	}
	cfg := Config{Name: "p", Quantum: 100 * time.Millisecond, Planned: 7, Testers: testers}
	want := mustCompute(t, cfg.Quantum, testers, calls)
	want.Name = "p"
	for _, workers := range []int{1, 2, 3} {
		p, err := NewParallel(cfg, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(calls); i += 97 {
			_ = p.Add(calls[i:min(i+97, len(calls))])
		}
		got, err := p.Result()
		if err != nil {
			t.Fatal(err)
		}
		got.Summary.Testers.Planned = want.Summary.Testers.Planned
		if d := firstDiff(got, want, "result"); d != "" {
			t.Errorf("%d workers: differs from the serial result at %s", workers, d)
		}
	}
}
