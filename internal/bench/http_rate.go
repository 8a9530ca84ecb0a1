package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
	"github.com/diperf/diperf/internal/tester"
)

// HTTPRateResult is the JSON line of `diperf bench http --rate`: the
// closed loop's fields, with p50_ms and p99_ms measured from each call's
// intended start (coordinated omission counted, as wrk2 does), and the
// open model's own.
type HTTPRateResult struct {
	HTTPResult
	Arrivals     string  `json:"arrivals"`
	TargetRate   float64 `json:"target_rate"`   // calls/s asked for
	Intended     int64   `json:"intended"`      // calls due to start
	Started      int64   `json:"started"`       // calls made (not dropped)
	AchievedRate float64 `json:"achieved_rate"` // calls started per second (see achievedRate)
	Late         int64   `json:"late"`          // started more than analyze.LateAfter past their intended start
	Dropped      int64   `json:"dropped"`       // never made: no connection free within --max-lateness
	LagP50Ms     float64 `json:"lag_p50_ms"`    // start − intended start, of the calls made
	LagP99Ms     float64 `json:"lag_p99_ms"`
	CPUCore      float64 `json:"cpu_core"` // cpu_s / wall_s: the share of one core used
}

// Summary is the open model's measurement in a line for people.
func (r *HTTPRateResult) Summary() string {
	return fmt.Sprintf("%s: %.0f calls/s asked, %.1f achieved (%d started, %d late, %d dropped, %d errors); "+
		"from intended start p50 %.3f ms, p99 %.3f ms; lag p50 %.3f ms, p99 %.3f ms; %.2f CPU-s, %.1f%% of a core",
		r.url, r.TargetRate, r.AchievedRate, r.Started, r.Late, r.Dropped, r.Errors,
		r.P50Ms, r.P99Ms, r.LagP50Ms, r.LagP99Ms, r.CPUS, 100*r.CPUCore)
}

// rateTally gathers the open model's calls (from every worker at once).
type rateTally struct {
	mu                  sync.Mutex
	resp, lag           *hdr.Histogram // µs, stats.NewRTHist's geometry
	intended, started   int64
	late, dropped, errs int64
	firstErr            string
	lastStart           int64
}

func newRateTally() *rateTally {
	return &rateTally{resp: stats.NewRTHist(), lag: stats.NewRTHist()}
}

func (t *rateTally) add(s sample.Sample) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.intended++
	if s.Status == sample.Dropped {
		t.dropped++
		return
	}
	t.started++
	t.lastStart = max(t.lastStart, s.Start)
	lag := max(s.Start-s.Intended, 0)
	if lag > analyze.LateAfter {
		t.late++
	}
	stats.RecordRT(t.lag, lag)
	stats.RecordRT(t.resp, s.End-s.Intended)
	if s.Status != sample.OK {
		t.errs++
		if t.firstErr == "" {
			t.firstErr = s.Err
		}
	}
}

// runHTTPRate runs the open model r on conns connections (the HTTP event
// loop when c is one, else the tester's dispatcher with conns workers) and
// sums it up.
func runHTTPRate(ctx context.Context, url string, c client.Client, r *protocol.RateDesc, conns int) *HTTPRateResult {
	t := newRateTally()
	cpu0 := processCPU()
	base := time.Now()
	t0 := base.UnixNano() // the dispatcher's clock reads Unix ns (offset 0, no drift)
	tester.RunOpen(ctx, r, conns, c, t.add)
	wall := time.Since(base).Seconds()
	res := &HTTPRateResult{Arrivals: r.Arrivals, TargetRate: r.Stages[0].From}
	h := &res.HTTPResult
	h.url, h.Engine, h.Connections, h.WallS = url, "call", conns, wall
	if _, ok := c.(client.OpenLooper); ok {
		h.Engine = "loop"
	}
	h.CPUS = (processCPU() - cpu0).Seconds()
	h.Requests, h.Errors, h.FirstError = t.started, t.errs, t.firstErr
	h.RequestsPerS = float64(t.started) / wall
	if h.CPUS > 0 {
		h.RequestsPerCPUS = float64(t.started) / h.CPUS
	}
	h.P50Ms, h.P99Ms = quantileMs(t.resp, 50), quantileMs(t.resp, 99)
	res.Intended, res.Started, res.Late, res.Dropped = t.intended, t.started, t.late, t.dropped
	res.AchievedRate = achievedRate(t.started, t.lastStart-t0, r.DurationNs())
	res.LagP50Ms, res.LagP99Ms = quantileMs(t.lag, 50), quantileMs(t.lag, 99)
	res.CPUCore = h.CPUS / wall
	return res
}

// achievedRate is the calls started per second over the run's duration,
// stretched to the last start when calls started after it (late).
func achievedRate(started, lastStartNs, durNs int64) float64 {
	return float64(started) / (float64(max(lastStartNs, durNs)) / 1e9)
}
