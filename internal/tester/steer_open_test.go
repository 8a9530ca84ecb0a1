package tester

import (
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// steeredRun runs the open model r with 4 workers on fake time, its load
// steps from steps, and returns the intended starts of its calls, as
// offsets from its start, and how many were dropped.
func steeredRun(t *testing.T, r *protocol.RateDesc, steps <-chan loadStep) ([]time.Duration, int) {
	t.Helper()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []sample.Sample
	record := funcSink(func(s sample.Sample) { mu.Lock(); got = append(got, s); mu.Unlock() })
	clk := clock.NewLocal(0, 0)
	t0 := clk.Now()
	if why := runOpenSteered(t.Context(), r, 4, slowClient{}, clk, record, steps); why != "completed" {
		t.Fatalf("ended %q", why)
	}
	dropped := 0
	for _, s := range got {
		if s.Status == sample.Dropped {
			dropped++
		}
	}
	return intendedOffsets(got, t0), dropped
}

// countIn returns how many of offs fall in [from, to).
func countIn(offs []time.Duration, from, to time.Duration) int {
	n := 0
	for _, d := range offs {
		if d >= from && d < to {
			n++
		}
	}
	return n
}

// TestSteerUniformRate: uniform arrivals at 10 calls/s, stepped to 50 at
// 2 s and to 20 at 5 s of a 10 s run, make exactly the steps' rates times
// their lengths: 20, 150 and 100 calls, none dropped.
func TestSteerUniformRate(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		steps := make(chan loadStep, 2)
		now := time.Now()
		steps <- loadStep{seq: 1, at: now.Add(2 * time.Second), rate: 50}
		steps <- loadStep{seq: 2, at: now.Add(5 * time.Second), rate: 20}
		offs, dropped := steeredRun(t, constant(protocol.ArrivalsUniform, 10, 10*time.Second), steps)
		s := time.Second
		got := [3]int{countIn(offs, 0, 2*s), countIn(offs, 2*s, 5*s), countIn(offs, 5*s, 10*s)}
		if got != [3]int{20, 150, 100} || len(offs) != 270 || dropped != 0 {
			t.Errorf("calls per step %v (%d in all, %d dropped), want [20 150 100], 270, 0", got, len(offs), dropped)
		}
		// No burst: the gaps are the old rate's up to the step, the new
		// one's after it.
		for i := 1; i < len(offs); i++ {
			if gap := offs[i] - offs[i-1]; gap < 20*time.Millisecond-time.Microsecond {
				t.Fatalf("gap of %v at %v: faster than the highest rate", gap, offs[i])
			}
		}
	})
}

// TestSteerRearmsTheTimer: a run at rate 0 has no call to wait for; a
// step to 10 calls/s that comes at 3 s wakes the dispatcher, which starts
// the calls at once at the new rate: 70 over the last 7 s, the first half
// a gap after the step. A step that comes late (its instant 0.5 s ago)
// takes effect when it comes, without a burst of the calls it missed.
func TestSteerRearmsTheTimer(t *testing.T) {
	t.Parallel()
	for _, late := range []time.Duration{0, 500 * time.Millisecond} {
		synctest.Test(t, func(t *testing.T) {
			steps := make(chan loadStep, 1)
			go func() {
				time.Sleep(3 * time.Second)
				steps <- loadStep{seq: 1, at: time.Now().Add(-late), rate: 10}
			}()
			offs, _ := steeredRun(t, constant(protocol.ArrivalsUniform, 0, 10*time.Second), steps)
			if len(offs) != 70 || offs[0] != 3050*time.Millisecond {
				t.Errorf("late %v: %d calls, the first at %v; want 70 from 3.05 s", late, len(offs), offs)
			}
		})
	}
}

// TestSteerPoissonMean: Poisson arrivals stepped from 20 to 100 calls/s
// at 50 s make, in each step, a count within 4 standard deviations of
// its mean (a Poisson count's variance is its mean): 1,000 and 5,000.
func TestSteerPoissonMean(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		steps := make(chan loadStep, 1)
		steps <- loadStep{seq: 1, at: time.Now().Add(50 * time.Second), rate: 100}
		r := constant(protocol.ArrivalsPoisson, 20, 100*time.Second)
		r.Seed = 7
		offs, _ := steeredRun(t, r, steps)
		for _, c := range []struct {
			from, to time.Duration
			mean     float64
		}{{0, 50 * time.Second, 1000}, {50 * time.Second, 100 * time.Second, 5000}} {
			if n := float64(countIn(offs, c.from, c.to)); math.Abs(n-c.mean) > 4*math.Sqrt(c.mean) {
				t.Errorf("%d calls in [%v, %v), want %v ± %v", int(n), c.from, c.to, c.mean, 4*math.Sqrt(c.mean))
			}
		}
	})
}
