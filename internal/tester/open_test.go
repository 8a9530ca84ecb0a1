package tester

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// slowClient is a fake client whose every call takes took (on the bubble's
// fake time), or until ctx is done.
type slowClient struct{ took time.Duration }

func (c slowClient) Call(ctx context.Context) client.Reply {
	if c.took == 0 {
		return client.Reply{Status: sample.OK}
	}
	select {
	case <-time.After(c.took):
		return client.Reply{Status: sample.OK}
	case <-ctx.Done():
		return client.Reply{Status: sample.Cancelled}
	}
}

// openRun runs the open model r with n workers of client c on fake time,
// through a real outbox, and returns why it ended, the samples and the
// local time it started at.
func openRun(t *testing.T, ctx context.Context, r *protocol.RateDesc, n int, c client.Client) (string, []sample.Sample, int64) {
	t.Helper()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	o := newOutbox(protocol.NewConn(discard{}), func(error) {})
	clk := clock.NewLocal(0, 0)
	t0 := clk.Now()
	why := runOpen(ctx, r, n, c, clk, o)
	if o.produced != uint64(len(o.pending)) {
		t.Fatalf("a batch was flushed (%d samples produced, %d pending): the test sees only pending ones", o.produced, len(o.pending))
	}
	return why, o.pending, t0
}

func constant(arrivals string, rate float64, d time.Duration) *protocol.RateDesc {
	return &protocol.RateDesc{Arrivals: arrivals, MaxLatenessNs: int64(2 * time.Second),
		Stages: []protocol.StageDesc{{DurationNs: int64(d), From: rate, To: rate}}}
}

// intendedOffsets returns the intended starts of samples, since t0, in
// order.
func intendedOffsets(ss []sample.Sample, t0 int64) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = time.Duration(s.Intended - t0)
	}
	slices.Sort(out)
	return out
}

// TestOpenUniformConstant: 100 calls/s for 10 s make exactly 1,000 calls,
// due 10 ms apart (the first half a gap in), each started on time by one
// of 4 workers, in turn, none late and none dropped.
func TestOpenUniformConstant(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		why, ss, t0 := openRun(t, t.Context(), constant(protocol.ArrivalsUniform, 100, 10*time.Second), 4, slowClient{took: 25 * time.Millisecond})
		if why != "completed" || len(ss) != 1000 {
			t.Fatalf("ended %q with %d calls, want completed with 1000", why, len(ss))
		}
		clients := map[uint32]int{}
		for i, d := range intendedOffsets(ss, t0) {
			if want := 5*time.Millisecond + time.Duration(i)*10*time.Millisecond; d != want {
				t.Fatalf("call %d due at %v, want %v", i, d, want)
			}
		}
		for _, s := range ss {
			clients[s.Client]++
			if s.Status != sample.OK || s.Start != s.Intended || s.End-s.Start != int64(25*time.Millisecond) {
				t.Fatalf("call %+v: want OK, started at its intended start, 25ms long", s)
			}
		}
		if len(clients) != 4 || clients[0] != 250 || clients[1] != 250 || clients[2] != 250 || clients[3] != 250 {
			t.Errorf("calls by client %v, want 250 each: the worker idle longest takes the next call", clients)
		}
	})
}

// TestOpenUniformRamp: a ramp from 0 to 100 calls/s over 10 s makes 500
// calls; call k is due where the rate's integral, 5t², reaches k + ½.
func TestOpenUniformRamp(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := &protocol.RateDesc{Arrivals: protocol.ArrivalsUniform, MaxLatenessNs: int64(time.Second),
			Stages: []protocol.StageDesc{{DurationNs: int64(10 * time.Second), From: 0, To: 100}}}
		why, ss, t0 := openRun(t, t.Context(), r, 2, slowClient{})
		if why != "completed" || math.Abs(float64(len(ss))-500) > 1 {
			t.Fatalf("ended %q with %d calls, want completed with 500±1", why, len(ss))
		}
		for k, d := range intendedOffsets(ss, t0) {
			want := math.Sqrt((float64(k) + 0.5) / 5)
			if math.Abs(d.Seconds()-want) > 1e-9 {
				t.Fatalf("call %d due at %v, want %.9fs", k, d, want)
			}
		}
	})
}

// TestOpenStages: a stage at rate 0 makes no call, and the stages follow
// one another: 50/s for 1 s, 0 for 1 s, 100→0 over 1 s (50 calls), 20/s
// for 0.5 s.
func TestOpenStages(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := time.Second.Nanoseconds()
		r := &protocol.RateDesc{Arrivals: protocol.ArrivalsUniform, MaxLatenessNs: s,
			Stages: []protocol.StageDesc{{DurationNs: s, From: 50, To: 50}, {DurationNs: s}, {DurationNs: s, From: 100}, {DurationNs: s / 2, From: 20, To: 20}}}
		start := time.Now()
		why, ss, t0 := openRun(t, t.Context(), r, 1, slowClient{})
		if el := time.Since(start); el != 3500*time.Millisecond {
			t.Errorf("the run ended %v after it started, want at the stages' end, 3.5s", el)
		}
		if why != "completed" || len(ss) != 50+0+50+10 {
			t.Fatalf("ended %q with %d calls, want completed with 110", why, len(ss))
		}
		per := make([]int, 4)
		for _, d := range intendedOffsets(ss, t0) {
			per[min(int(2*d.Seconds())/2, 3)]++
		}
		if per[0] != 50 || per[1] != 0 || per[2] != 50 || per[3] != 10 {
			t.Errorf("calls per stage %v, want [50 0 50 10]", per)
		}
	})
}

// TestOpenPoisson: Poisson arrivals at 1,000 calls/s over 10 s make a
// count within 3σ (√10000) of 10,000 and exponential gaps (their mean
// 1 ms, their coefficient of variation near 1); the same seed gives the
// same arrivals. Calls are counted without a client: the arrivals alone.
func TestOpenPoisson(t *testing.T) {
	t.Parallel()
	r := constant(protocol.ArrivalsPoisson, 1000, 10*time.Second)
	r.Seed = 42
	gaps := func() []float64 {
		a := newArrivals(r)
		var out []float64
		var last time.Duration
		for d, ok := a.next(); ok; d, ok = a.next() {
			out = append(out, (d - last).Seconds())
			last = d
		}
		return out
	}
	g := gaps()
	if n := float64(len(g)); math.Abs(n-10000) > 3*100 {
		t.Errorf("%v Poisson calls in 10s at 1000/s, want 10000 ± 300", n)
	}
	var sum, sq float64
	for _, x := range g {
		sum += x
	}
	mean := sum / float64(len(g))
	for _, x := range g {
		sq += (x - mean) * (x - mean)
	}
	cv := math.Sqrt(sq/float64(len(g))) / mean
	if math.Abs(mean-1e-3) > 3e-5 || math.Abs(cv-1) > 0.05 {
		t.Errorf("gaps mean %v, coefficient of variation %.3f; want 1ms and 1 (exponential)", mean, cv)
	}
	if again := gaps(); len(again) != len(g) || again[17] != g[17] {
		t.Errorf("the same seed gave other arrivals")
	}
}

// TestOpenPoissonRamp: a Poisson ramp 0→2,000 calls/s over 10 s makes
// 10,000 calls within 3σ, three quarters of them in the second half.
func TestOpenPoissonRamp(t *testing.T) {
	t.Parallel()
	r := &protocol.RateDesc{Arrivals: protocol.ArrivalsPoisson, MaxLatenessNs: 1, Seed: 7,
		Stages: []protocol.StageDesc{{DurationNs: int64(10 * time.Second), To: 2000}}}
	a := newArrivals(r)
	var n, late float64
	for d, ok := a.next(); ok; d, ok = a.next() {
		n++
		if d >= 5*time.Second {
			late++
		}
	}
	if math.Abs(n-10000) > 300 || math.Abs(late/n-0.75) > 0.02 {
		t.Errorf("%v calls, %.3f of them in the second half; want 10000 ± 300 and 0.75", n, late/n)
	}
}

// stallClient is a fake client whose calls take 1 ms, except that a call
// started in [from, to) since t0 blocks until to: the service stalls.
type stallClient struct {
	t0       time.Time
	from, to time.Duration
}

func (c stallClient) Call(ctx context.Context) client.Reply {
	d := time.Millisecond
	if at := time.Since(c.t0); at >= c.from && at < c.to {
		d = c.to - at
	}
	return slowClient{took: d}.Call(ctx)
}

// checkAccounted checks that every arrival of a run is in its samples,
// made or dropped: a made call started within maxLate of its intended
// start, a dropped one was given up just past it (Start = End) and says
// why. It returns the made and dropped calls and the longest response
// time counted from the intended start.
func checkAccounted(t *testing.T, ss []sample.Sample, maxLate time.Duration) (made, dropped int, worst time.Duration) {
	t.Helper()
	for _, s := range ss {
		late := time.Duration(s.Start - s.Intended)
		switch s.Status {
		case sample.Dropped:
			dropped++
			if s.End != s.Start || late <= maxLate || late > maxLate+time.Millisecond || s.Err == "" {
				t.Fatalf("dropped call %+v: want given up just past %v late, with a reason", s, maxLate)
			}
		default:
			made++
			if late < 0 || late > maxLate {
				t.Fatalf("call %+v started %v late, want within 0..%v", s, late, maxLate)
			}
		}
		worst = max(worst, time.Duration(s.End-s.Intended))
	}
	return made, dropped, worst
}

// TestOpenStalledClients: every call blocks 2 s and 4 workers face 100
// calls/s for 10 s. Each of the 1,000 arrivals is in the samples: the
// calls a worker could take within 2 s of their intended start were made
// late, their response time counted from it (up to 4 s: 2 s waiting plus
// the 2 s call); the others were dropped 2 s after their intended start.
func TestOpenStalledClients(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		why, ss, _ := openRun(t, t.Context(), constant(protocol.ArrivalsUniform, 100, 10*time.Second), 4, slowClient{took: 2 * time.Second})
		if why != "completed" || len(ss) != 1000 {
			t.Fatalf("ended %q with %d samples, want completed with 1000", why, len(ss))
		}
		made, dropped, worst := checkAccounted(t, ss, 2*time.Second)
		// 4 workers, each a 2 s call at a time, from 5 ms to 12 s: 24 calls.
		if made != 24 || dropped != 976 || worst < 3900*time.Millisecond {
			t.Errorf("%d calls made, %d dropped, longest response %v; want 24, 976, about 4s", made, dropped, worst)
		}
		if el := time.Since(start); el > 14*time.Second {
			t.Errorf("the run took %v, want its last calls (2 s late, 2 s long) finished by 14s", el)
		}
	})
}

// TestOpenStall: the service stalls 3 s (calls started from 3 s to 6 s
// block until 6 s) under 100 calls/s over 8 s with 4 workers: the calls
// due in the stall wait and then start late, their response time counted
// from the intended start (the stall shows, as wrk2 would show it); those
// that could not start within 2 s (due from 3 s to 4 s) are dropped and
// counted; none is lost.
func TestOpenStall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := stallClient{t0: time.Now(), from: 3 * time.Second, to: 6 * time.Second}
		why, ss, t0 := openRun(t, t.Context(), constant(protocol.ArrivalsUniform, 100, 8*time.Second), 4, c)
		if why != "completed" || len(ss) != 800 {
			t.Fatalf("ended %q with %d samples, want completed with 800", why, len(ss))
		}
		made, dropped, worst := checkAccounted(t, ss, 2*time.Second)
		var late int
		for _, s := range ss {
			if s.Status == sample.OK && s.Start-s.Intended > int64(time.Millisecond) {
				late++
			}
			if at := time.Duration(s.Intended - t0); s.Status == sample.Dropped && (at < 3*time.Second || at > 4*time.Second) {
				t.Errorf("a call due at %v, outside the stall, was dropped", at)
			}
		}
		if late < 150 || dropped < 90 || made+dropped != 800 || worst < 2900*time.Millisecond {
			t.Errorf("%d late calls, %d dropped, %d made, longest response %v; want about 200 late, 96 dropped, the worst about 3s",
				late, dropped, made, worst)
		}
		t.Logf("stall: %d made (%d late), %d dropped, worst response from intended start %v", made, late, dropped, worst)
	})
}

// TestOpenStopped: a stop ends the dispatcher at once; the calls waiting
// for a worker are recorded as dropped, the calls in flight are cancelled.
func TestOpenStopped(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		why, ss, _ := openRun(t, ctx, constant(protocol.ArrivalsUniform, 100, 10*time.Second), 2, slowClient{took: time.Hour})
		if el := time.Since(start); why != "stopped" || el != time.Second {
			t.Fatalf("ended %q after %v, want stopped after 1s", why, el)
		}
		var cancelled, dropped int
		for _, s := range ss {
			switch s.Status {
			case sample.Cancelled:
				cancelled++
			case sample.Dropped:
				dropped++
			}
		}
		if cancelled != 2 || dropped != 98 {
			t.Errorf("%d calls cancelled, %d dropped; want the 2 in flight and the 98 waiting", cancelled, dropped)
		}
	})
}

// countSink counts the open model's samples by status and keeps none.
type countSink struct {
	mu      sync.Mutex
	byState [8]int
	errs    map[string]int
}

func (k *countSink) callAt(ctx context.Context, c client.Client, _ *clock.Local, _ uint32, _ int64) sample.Status {
	r := c.Call(ctx)
	k.add(sample.Sample{Status: r.Status})
	return r.Status
}

func (k *countSink) add(s sample.Sample) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.byState[s.Status]++
	if s.Err != "" {
		k.errs[s.Err]++
	}
}

// TestOpenQueueBounded: 100,000 calls/s meet one worker stuck for the
// whole 2 s run, with a lateness of 10 s: the wait queue stops at its
// bound (65,536 calls, 1.5 MB) and the calls beyond it are dropped, and
// counted, as the queue overflows.
func TestOpenQueueBounded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := constant(protocol.ArrivalsUniform, 100_000, 2*time.Second)
		r.MaxLatenessNs = int64(10 * time.Second)
		k := &countSink{errs: map[string]int{}}
		d := newDispatcher(r, 1, clock.NewLocal(0, 0), k)
		if len(d.queue.buf) != maxOpenQueue {
			t.Fatalf("queue of %d calls, want the bound %d", len(d.queue.buf), maxOpenQueue)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second+time.Millisecond)
		defer cancel()
		if why := d.run(ctx); why != "stopped" {
			t.Fatalf("ended %q, want stopped", why)
		}
		// No worker: every call queued; 200,000 − 65,536 overflowed, the
		// rest were dropped at the stop.
		if k.byState[sample.Dropped] != 200_000 || k.errs[d.fullErr] != 200_000-maxOpenQueue {
			t.Errorf("%d dropped, %v; want 200000, %d for a full queue", k.byState[sample.Dropped], k.errs, 200_000-maxOpenQueue)
		}
	})
}

// TestLoopRunsTheOpenModel: a tester whose test description has a Rate
// runs the open model (every sample has its intended start), and the
// closed loop otherwise (none has).
func TestLoopRunsTheOpenModel(t *testing.T) {
	t.Parallel()
	for _, open := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			tt := &Tester{clk: clock.NewLocal(0, 0), out: newOutbox(protocol.NewConn(discard{}), func(error) {})}
			tt.desc = protocol.TestDesc{DurationNs: int64(time.Second), IntervalNs: int64(100 * time.Millisecond), ClientsPerTester: 2}
			if open {
				tt.desc.Rate = constant(protocol.ArrivalsUniform, 30, time.Second)
			}
			if why := tt.loop(t.Context(), slowClient{took: time.Millisecond}, 0, 0); why != "completed" {
				t.Fatalf("open %v: loop ended %q", open, why)
			}
			var intended, n int
			for _, s := range tt.out.pending {
				n++
				if s.Intended != 0 {
					intended++
				}
			}
			if want := map[bool]int{true: 30, false: 0}[open]; intended != want || (open && n != 30) || (!open && n != 20) {
				t.Errorf("open %v: %d samples, %d with an intended start; want %d", open, n, intended, want)
			}
		})
	}
}
