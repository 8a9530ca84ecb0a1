package bench

import (
	"context"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// httpTally gathers the calls of one engine goroutine.
type httpTally struct {
	hist     *hdr.Histogram // µs, stats.NewRTHist's geometry
	n, errs  int64
	firstErr string
}

func newHTTPTally() *httpTally { return &httpTally{hist: stats.NewRTHist()} }

func (t *httpTally) add(start, end int64, r *client.Reply) {
	t.n++
	stats.RecordRT(t.hist, end-start)
	if r.Status != sample.OK {
		t.errs++
		if t.firstErr == "" {
			t.firstErr = r.Err
		}
	}
}

func (t *httpTally) merge(o *httpTally) {
	t.hist.Merge(o.hist)
	t.n += o.n
	t.errs += o.errs
	if t.firstErr == "" {
		t.firstErr = o.firstErr
	}
}

// runHTTPClosed runs the closed loops and sums them up.
func runHTTPClosed(ctx context.Context, c client.Client, lp client.Looper, loop bool, conns int, dur time.Duration) *HTTPResult {
	base := time.Now()
	now := func() int64 { return int64(time.Since(base)) }
	cpu0 := processCPU()
	total := newHTTPTally()
	res := &HTTPResult{Engine: "call", Connections: conns}
	until := now() + int64(dur)
	if loop {
		res.Engine = "loop"
		lp.Loop(ctx, conns, 0, until, now, func(_ uint32, start, end int64, r *client.Reply) { total.add(start, end, r) })
	} else {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range conns {
			wg.Go(func() {
				t := newHTTPTally()
				for now() < until && ctx.Err() == nil {
					start := now()
					r := c.Call(ctx)
					t.add(start, now(), &r)
				}
				mu.Lock()
				defer mu.Unlock()
				total.merge(t)
			})
		}
		wg.Wait()
	}
	res.WallS = time.Since(base).Seconds()
	res.CPUS = (processCPU() - cpu0).Seconds()
	res.Requests, res.Errors, res.FirstError = total.n, total.errs, total.firstErr
	res.RequestsPerS = float64(res.Requests) / res.WallS
	if res.CPUS > 0 {
		res.RequestsPerCPUS = float64(res.Requests) / res.CPUS
	}
	res.P50Ms, res.P99Ms = quantileMs(total.hist, 50), quantileMs(total.hist, 99)
	return res
}

// quantileMs is h's q-th percentile in ms, 0 when h is empty.
func quantileMs(h *hdr.Histogram, q float64) float64 {
	if h.TotalCount() == 0 {
		return 0
	}
	return float64(h.ValueAtQuantile(q)) / 1000
}
