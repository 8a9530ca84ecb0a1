package model

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	dsample "github.com/diperf/diperf/internal/sample"
)

// closedRun describes a DiPerF run against the demo's target: Testers
// testers, one started every Interval and each calling back to back for
// Duration (ramp-up, hold, ramp-down), on a service of Workers slots that
// each serve a call in Service, first come first served. Each call also
// spends client time outside the service (starting the client process
// before, exiting after): a log-normal time of median ClientMs and
// log-sd ClientSpread, plus, with probability StallP, a stall of the
// client process, exponential with mean StallMs. The machine running
// the clients is also busy: it freezes FreezesPerS times a second on
// average, for an exponential time of mean FreezeMs, and a client that
// would start or finish a call meanwhile does so when the freeze ends
// (the service, elsewhere, goes on serving the calls it holds).
type closedRun struct {
	Testers      int
	Interval     time.Duration
	Duration     time.Duration
	Workers      int
	Service      time.Duration
	ClientMs     float64
	ClientSpread float64
	StallP       float64
	StallMs      float64
	FreezesPerS  float64
	FreezeMs     float64
}

// demoLike is a demo run on a busy machine: client processes take some
// 8 ms to start and exit, spread by a factor of e^0.5, one call in 50 is
// held up by a stall of 20 ms on average, and the machine freezes twice
// a second for 30 ms on average. On 250 ms quanta the throughput of the
// issue's run (16 testers, 7 workers × 70 ms) then scatters by some 7%
// about the curve, as on the busy machine of the issue.
func demoLike(testers int, interval, duration time.Duration, workers int, service time.Duration) closedRun {
	return closedRun{Testers: testers, Interval: interval, Duration: duration, Workers: workers, Service: service,
		ClientMs: 8, ClientSpread: 0.5, StallP: 0.02, StallMs: 20, FreezesPerS: 2, FreezeMs: 30}
}

// truth is the throughput the run's service gives at a load of n calls in
// flight (counted at the clients, as the analyzer does): n/R0 below the
// knee and C/S at and beyond it, never declining. R0 is the mean response
// time of a call that does not queue, measured on a long run of the same
// clients at light load: two testers for 300 s (the freezes make it more
// than the sum of the means of its parts, and less than a freeze's share
// of a uniformly drawn instant would add).
func (c closedRun) truth() BoundsParams {
	light := c
	light.Testers, light.Duration = 2, 300*time.Second
	in := light.input(1, time.Second)
	var sum float64
	for _, call := range in.Calls {
		sum += float64(call.End - call.Start)
	}
	r0 := sum / float64(len(in.Calls)) / float64(time.Millisecond)
	return BoundsParams{R0Ms: r0, Plateau: float64(c.Workers) / c.Service.Seconds()}
}

// runEpoch is the simulated run's start, Unix ns.
const runEpoch = int64(1_750_000_000) * int64(time.Second)

// simulate runs c with the generator seeded by seed and analyzes it at
// quantum q, as `diperf analyze --quantum` does.
func (c closedRun) simulate(seed uint64, q time.Duration) (*analyze.Result, error) {
	return analyze.Compute(c.input(seed, q))
}

// input runs c with the generator seeded by seed: its calls and testers,
// for analysis at quantum q.
func (c closedRun) input(seed uint64, q time.Duration) *analyze.Input {
	rng := rand.New(rand.NewPCG(seed, 0xc105ed))
	in := &analyze.Input{Name: "closed", Quantum: q, Planned: c.Testers}
	span := int64(c.Testers)*int64(c.Interval) + int64(c.Duration) + int64(10*time.Second)
	fr := c.freezes(span, rng)
	arrivals := &callHeap{}
	for i := range c.Testers {
		start := runEpoch + int64(i)*int64(c.Interval) + rng.Int64N(int64(5*time.Millisecond))
		in.Testers = append(in.Testers, analyze.Tester{Index: i, ID: "sim", Host: "sim", Start: start, End: start + int64(c.Duration)})
		heap.Push(arrivals, c.newCall(int32(i), start, rng))
	}
	free := make(workerHeap, c.Workers)
	for i := range free {
		free[i] = runEpoch
	}
	for arrivals.Len() > 0 {
		call := heap.Pop(arrivals).(pendingCall)
		begin := max(fr.thaw(call.arrive), free[0])
		done := begin + int64(c.Service)
		free[0] = done
		heap.Fix(&free, 0)
		end := fr.thaw(done + call.after)
		t := &in.Testers[call.tester]
		in.Calls = append(in.Calls, dsample.Call{Tester: call.tester, Start: call.start, End: end, Status: dsample.OK})
		if next := end + int64(200*time.Microsecond); next < t.End {
			heap.Push(arrivals, c.newCall(call.tester, next, rng))
		} else {
			t.End = max(t.End, end)
		}
	}
	return in
}

// newCall is a call tester starts at start: its client time is split
// between before it reaches the service and after.
func (c closedRun) newCall(tester int32, start int64, rng *rand.Rand) pendingCall {
	ms := c.ClientMs * math.Exp(c.ClientSpread*rng.NormFloat64())
	if rng.Float64() < c.StallP {
		ms += c.StallMs * rng.ExpFloat64()
	}
	client := int64(ms * float64(time.Millisecond))
	before := client * 3 / 4
	return pendingCall{tester: tester, start: start, arrive: start + before, after: client - before}
}

// freezes are the windows [from, to) in which the client machine is
// frozen, in time order.
type freezes [][2]int64

// freezes draws the freezes of the client machine over span ns from the
// run's start: a Poisson process of rate FreezesPerS, exponential lengths.
func (c closedRun) freezes(span int64, rng *rand.Rand) freezes {
	var f freezes
	if c.FreezesPerS <= 0 {
		return f
	}
	for t := runEpoch; ; {
		t += int64(rng.ExpFloat64() / c.FreezesPerS * float64(time.Second))
		if t > runEpoch+span {
			return f
		}
		d := int64(rng.ExpFloat64() * c.FreezeMs * float64(time.Millisecond))
		f = append(f, [2]int64{t, t + d})
		t += d
	}
}

// thaw returns t, or the end of the freeze t falls in.
func (f freezes) thaw(t int64) int64 {
	i, _ := slices.BinarySearchFunc(f, t, func(w [2]int64, t int64) int {
		if w[1] <= t {
			return -1
		}
		return 1
	})
	if i < len(f) && f[i][0] <= t {
		return f[i][1]
	}
	return t
}

// pendingCall is a call on its way to the service.
type pendingCall struct {
	tester int32
	start  int64 // when the tester started it, Unix ns
	arrive int64 // when it reaches the service
	after  int64 // client time after the service answers, ns
}

// callHeap orders pending calls by arrival at the service.
type callHeap []pendingCall

func (h callHeap) Len() int           { return len(h) }
func (h callHeap) Less(i, j int) bool { return h[i].arrive < h[j].arrive }
func (h callHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *callHeap) Push(x any)        { *h = append(*h, x.(pendingCall)) }
func (h *callHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// workerHeap holds when each service slot is next free, earliest first.
type workerHeap []int64

func (h workerHeap) Len() int           { return len(h) }
func (h workerHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h workerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *workerHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *workerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
