package tester

import (
	"context"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// lagSink records every call of the open model in the tester's real
// outbox (flushed as the tester flushes, to a connection that discards the
// batches) and keeps each call's scheduling lag, its start less its
// intended start, in a buffer allocated beforehand.
type lagSink struct {
	o       *outbox
	lags    []int64
	starts  []int64 // local ns, of the calls made
	n       atomic.Int64
	dropped atomic.Int64
}

func (s *lagSink) callAt(ctx context.Context, c client.Client, clk *clock.Local, client uint32, intended int64) sample.Status {
	start := clk.Now()
	r := c.Call(ctx)
	end := clk.Now()
	s.add(sample.Sample{Client: client, Start: start, End: end, Intended: intended, Status: r.Status})
	return r.Status
}

func (s *lagSink) add(x sample.Sample) {
	if x.Status == sample.Dropped {
		s.dropped.Add(1)
	}
	if i := s.n.Add(1) - 1; int(i) < len(s.lags) {
		s.lags[i] = x.Start - x.Intended
		if x.Status != sample.Dropped {
			s.starts[i] = x.Start
		}
	}
	s.o.add(x)
}

// BenchmarkOpenModel runs the open model at 5,000 calls/s (uniform) for 5
// s (DIPERF_OPEN_SECONDS to change it) with 50 workers of the null client
// through the real dispatcher and outbox, on real time, and reports the
// CPU it took as a fraction of one core (getrusage of the whole process,
// user + system, over the wall time), the achieved rate, the scheduling
// lag (start − intended start) at p50, p99, p99.9 and max, the worst 1 s
// quantum's achieved rate over the offered one, the calls dropped, the
// heap allocations per call (the outbox's batches included), and the
// worker goroutines (the dispatcher is the caller's, on
// one timer). For scale on a shared machine it first runs the floor: one
// goroutine waking on one Go timer at each intended start of the same
// schedule for 2 s, doing nothing else (floor-*: its lag and CPU).
func BenchmarkOpenModel(b *testing.B) {
	const rate, workers = 5000.0, 50
	secs := 5.0
	if v, err := strconv.ParseFloat(os.Getenv("DIPERF_OPEN_SECONDS"), 64); err == nil && v > 0 {
		secs = v
	}
	dur := time.Duration(secs * float64(time.Second))
	r := &protocol.RateDesc{Arrivals: protocol.ArrivalsUniform, MaxLatenessNs: int64(2 * time.Second),
		Stages: []protocol.StageDesc{{DurationNs: int64(dur), From: rate, To: rate}}}
	for range b.N {
		floor, floorCPU := timerFloor(rate, 2*time.Second)
		b.ReportMetric(floorCPU, "floor-cores")
		b.ReportMetric(quantile(floor, 0.5), "floor-lag-p50-µs")
		b.ReportMetric(quantile(floor, 0.99), "floor-lag-p99-µs")
		s := &lagSink{o: newOutbox(protocol.NewConn(discard{}), func(error) {}), lags: make([]int64, int(rate*secs)+10),
			starts: make([]int64, int(rate*secs)+10)}
		ctx, cancel := context.WithCancel(context.Background())
		go s.o.flushLoop(ctx, 500*time.Millisecond)
		g0 := runtime.NumGoroutine()
		var peak atomic.Int64
		go func() { // count the goroutines mid-run
			time.Sleep(dur / 2)
			peak.Store(int64(runtime.NumGoroutine() - g0 - 1))
		}()
		runtime.GC()
		m0 := mallocs()
		cpu0, wall0 := cpuTime(), time.Now()
		runOpen(ctx, r, workers, client.Null{}, clock.NewLocal(0, 0), s)
		cpu, wall := cpuTime()-cpu0, time.Since(wall0)
		b.ReportMetric(float64(mallocs()-m0)/(rate*secs), "allocs/call")
		cancel()
		lags := s.lags[:min(int(s.n.Load()), len(s.lags))]
		b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cores")
		b.ReportMetric(float64(len(lags))/dur.Seconds(), "calls/s")
		for _, p := range []struct {
			q    float64
			name string
		}{{0.5, "lag-p50-µs"}, {0.99, "lag-p99-µs"}, {0.999, "lag-p99.9-µs"}, {1, "lag-max-µs"}} {
			b.ReportMetric(quantile(lags, p.q), p.name)
		}
		b.ReportMetric(worstQuantum(s.starts[:len(lags)], time.Second, rate), "worst-1s-achieved/offered")
		b.ReportMetric(float64(s.dropped.Load()), "dropped")
		b.ReportMetric(float64(peak.Load()), "goroutines")
	}
}

// timerFloor wakes on one Go timer at each of rate calls/s, evenly spaced,
// for dur, and returns how late each wake-up was (ns) and the CPU it took,
// in cores.
func timerFloor(rate float64, dur time.Duration) ([]int64, float64) {
	n := int(rate * dur.Seconds())
	lags := make([]int64, n)
	tm := time.NewTimer(time.Hour)
	cpu0, t0 := cpuTime(), time.Now()
	for i := range n {
		due := t0.Add(time.Duration((float64(i) + 0.5) / rate * 1e9))
		if d := time.Until(due); d > 0 {
			tm.Reset(d)
			<-tm.C
		}
		lags[i] = int64(time.Since(due))
	}
	return lags, (cpuTime() - cpu0).Seconds() / time.Since(t0).Seconds()
}

// worstQuantum counts the calls started (starts, local ns; 0: dropped)
// in each whole quantum q from the first and returns the count furthest
// from rate × q, as a ratio to it.
func worstQuantum(starts []int64, q time.Duration, rate float64) float64 {
	t0 := int64(math.MaxInt64)
	for _, s := range starts {
		if s != 0 {
			t0 = min(t0, s)
		}
	}
	count := map[int64]float64{}
	for _, s := range starts {
		if s != 0 {
			count[(s-t0)/int64(q)]++
		}
	}
	worst, want := 1.0, rate*q.Seconds()
	for k, c := range count {
		if _, next := count[k+1]; next && math.Abs(c/want-1) > math.Abs(worst-1) { // whole quanta only
			worst = c / want
		}
	}
	return worst
}

// quantile returns the q-quantile of lags (ns) in µs, sorting lags.
func quantile(lags []int64, q float64) float64 {
	if len(lags) == 0 {
		return 0
	}
	slices.Sort(lags)
	return float64(lags[int(q*float64(len(lags)-1))]) / 1e3
}

// mallocs returns the heap allocations made so far.
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// cpuTime returns the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
