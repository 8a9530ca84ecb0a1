// Package bench holds the benchmarks behind `diperf bench …`: each runs on
// real sockets in real time and ends with one JSON line of figures.
package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/clocksync"
	"github.com/diperf/diperf/internal/netsim"
	"github.com/diperf/diperf/internal/stats"
	"github.com/diperf/diperf/internal/timeserver"
)

// ClockOptions configure the clock benchmark.
type ClockOptions struct {
	Testers      int           // simulated testers, each with its own clock and socket
	Skew         time.Duration // injected offsets spread over ±Skew
	DriftPPM     float64       // injected drifts spread over ±DriftPPM
	Duration     time.Duration // how long to run
	SyncInterval time.Duration // re-sync period
	Probes       int           // probes per sync burst
	Transport    string        // "udp" or "tcp"
	Delay        time.Duration // one-way path delay (0 = straight to the server on loopback)
	DelaySpread  time.Duration // each tester's delay is drawn from Delay ± DelaySpread
	Jitter       time.Duration // extra per-packet delay, uniform in [0, Jitter), each way
	Asymmetry    time.Duration // the way up is this much longer than the way down
	Seed         uint64        // for the injected clocks and paths
}

// ClockResult holds the figures of the clock benchmark.
type ClockResult struct {
	Bench             string  `json:"bench"`
	Testers           int     `json:"testers"`
	DurationS         float64 `json:"duration_s"`
	SyncIntervalS     float64 `json:"sync_interval_s"`
	Samples           int     `json:"samples"`
	P50us             float64 `json:"p50_us"`
	P90us             float64 `json:"p90_us"`
	P99us             float64 `json:"p99_us"`
	MaxUs             float64 `json:"max_us"`
	BoundCoverage     float64 `json:"bound_coverage"`
	Syncs             int     `json:"syncs"`
	SyncP99us         float64 `json:"sync_p99_us"`
	SyncBoundCoverage float64 `json:"sync_bound_coverage"`
	SyncFailures      int     `json:"sync_failures"`
	RTTp50us          float64 `json:"rtt_p50_us"`
	BoundP50us        float64 `json:"bound_p50_us"`
}

// observation is one comparison of a tester's estimate with true time.
type observation struct {
	errNs, boundNs int64
	atSync         bool
}

// Clock runs the clock benchmark: simulated testers with wrong, drifting
// clocks sync with a real time server over real sockets (through delaying
// proxies when asked) and, at random instants between syncs, their estimate
// of global time is compared with the true time. Every process here shares
// one wall clock, so true time is simply time.Now.
func Clock(ctx context.Context, o ClockOptions, log io.Writer) (*ClockResult, error) {
	srvAddr, stop, err := startTimeServer(o.Transport)
	if err != nil {
		return nil, err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var mu sync.Mutex
	var obs []observation
	var rtts []float64
	failures := 0
	var wg sync.WaitGroup
	rng := rand.New(rand.NewPCG(o.Seed, 1))
	for i := 0; i < o.Testers; i++ {
		sim, err := newSimTester(o, srvAddr, rng, i)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sim.close()
			got, r, fails := sim.run(ctx, o)
			mu.Lock()
			obs, rtts, failures = append(obs, got...), append(rtts, r...), failures+fails
			mu.Unlock()
		}()
	}
	fmt.Fprintf(log, "bench clock: %d testers, skew ±%v, drift ±%g ppm, sync every %v, for %v\n",
		o.Testers, o.Skew, o.DriftPPM, o.SyncInterval, o.Duration)
	wg.Wait()
	return summarizeClock(o, obs, rtts, failures), nil
}

// startTimeServer serves time on loopback over transport ("udp" or "tcp")
// and returns its address and how to stop it.
func startTimeServer(transport string) (string, func(), error) {
	o := timeserver.Options{UDP: "127.0.0.1:0"}
	if transport == "tcp" {
		o = timeserver.Options{TCP: "127.0.0.1:0"}
	}
	svc, err := timeserver.Start(o)
	if err != nil {
		return "", nil, err
	}
	return svc.Addr(), func() { _ = svc.Stop() }, nil
}

// simTester is one tester's clock, path and syncer.
type simTester struct {
	sy    *clocksync.Syncer
	proxy io.Closer
	rng   *rand.Rand
}

func newSimTester(o ClockOptions, srvAddr string, rng *rand.Rand, i int) (*simTester, error) {
	off := int64((2*rng.Float64() - 1) * float64(o.Skew))
	drift := (2*rng.Float64() - 1) * o.DriftPPM
	clk := clock.NewLocal(off, drift)
	addr := srvAddr
	st := &simTester{rng: rand.New(rand.NewPCG(o.Seed, uint64(i)+2))}
	if o.Delay > 0 || o.Jitter > 0 || o.Asymmetry > 0 {
		d := o.Delay + time.Duration((2*rng.Float64()-1)*float64(o.DelaySpread))
		path := netsim.Path{Up: netsim.Delay{Base: d + o.Asymmetry, Jitter: o.Jitter},
			Down: netsim.Delay{Base: d, Jitter: o.Jitter}, Seed: o.Seed + uint64(i)}
		p, err := newProxy(o.Transport, srvAddr, path)
		if err != nil {
			return nil, err
		}
		st.proxy, addr = p, p.Addr()
	}
	sy, err := clocksync.New(o.Transport, addr, clk, o.Probes)
	if err != nil {
		return nil, err
	}
	st.sy = sy
	return st, nil
}

type proxy interface {
	io.Closer
	Addr() string
}

func newProxy(transport, upstream string, p netsim.Path) (proxy, error) {
	if transport == "tcp" {
		return netsim.NewTCPProxy("127.0.0.1:0", upstream, p)
	}
	return netsim.NewUDPProxy("127.0.0.1:0", upstream, p)
}

func (s *simTester) close() {
	s.sy.Close()
	if s.proxy != nil {
		s.proxy.Close()
	}
}

// run syncs on the tester's schedule, starting at a random point of the
// first interval so that testers do not sync in lockstep, and samples its
// error between syncs.
func (s *simTester) run(ctx context.Context, o ClockOptions) (obs []observation, rtts []float64, failures int) {
	if !clock.Sleep(ctx, time.Duration(s.rng.Float64()*float64(min(o.SyncInterval, time.Second)))) {
		return
	}
	every := min(o.SyncInterval/20, time.Second)
	next := time.Duration(0)
	for ctx.Err() == nil {
		rec, err := s.sy.Sync()
		if err != nil {
			failures++
		} else {
			rtts = append(rtts, float64(rec.RTTNs))
			if ob, ok := s.observe(true); ok {
				obs = append(obs, ob)
			}
		}
		next = clocksync.NextInterval(next, o.SyncInterval)
		deadline := time.Now().Add(next)
		for ctx.Err() == nil && time.Now().Before(deadline) {
			if !clock.Sleep(ctx, time.Duration((0.5+s.rng.Float64())*float64(every))) || !time.Now().Before(deadline) {
				break
			}
			if ob, ok := s.observe(false); ok {
				obs = append(obs, ob)
			}
		}
	}
	return obs, rtts, failures
}

// observe compares the estimate with true time, read on both sides of it;
// a reading interrupted by the scheduler (the two true times far apart) is
// thrown away rather than blamed on the clock.
func (s *simTester) observe(atSync bool) (observation, bool) {
	before := time.Now().UnixNano()
	est, bound := s.sy.Global()
	after := time.Now().UnixNano()
	if after-before > 20_000 {
		return observation{}, false
	}
	return observation{errNs: est - (before+after)/2, boundNs: bound, atSync: atSync}, true
}

func summarizeClock(o ClockOptions, obs []observation, rtts []float64, failures int) *ClockResult {
	var between, atSync, bounds []float64
	covered, syncCovered := 0, 0
	for _, ob := range obs {
		e := math.Abs(float64(ob.errNs))
		in := e <= float64(ob.boundNs)
		if ob.atSync {
			atSync = append(atSync, e)
			if in {
				syncCovered++
			}
			bounds = append(bounds, float64(ob.boundNs))
			continue
		}
		between = append(between, e)
		if in {
			covered++
		}
	}
	r := &ClockResult{Bench: "clock", Testers: o.Testers, DurationS: o.Duration.Seconds(),
		SyncIntervalS: o.SyncInterval.Seconds(), Samples: len(between), Syncs: len(atSync), SyncFailures: failures}
	r.P50us, r.P90us, r.P99us, r.MaxUs = pct(between, 50)/1e3, pct(between, 90)/1e3, pct(between, 99)/1e3, pct(between, 100)/1e3
	r.SyncP99us = pct(atSync, 99) / 1e3
	r.RTTp50us, r.BoundP50us = pct(rtts, 50)/1e3, pct(bounds, 50)/1e3
	r.BoundCoverage = ratio(covered, len(between))
	r.SyncBoundCoverage = ratio(syncCovered, len(atSync))
	return r
}

// pct is the nearest-rank percentile p of xs (p = 100: the maximum).
func pct(xs []float64, p int) float64 {
	return stats.Percentile(slices.Sorted(slices.Values(xs)), p)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
