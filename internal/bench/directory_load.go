package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/netmap"
)

// directoryLoad runs, together until o.Duration has passed, one sensor
// writing results one after another, one scraper reading /metrics, and
// one user reading what netmap reads, then makes the map once (its CPU,
// on the user's side, would slow the rest), and puts their times into r.
func directoryLoad(ctx context.Context, o DirectoryOptions, c *directory.Client, base string, r *DirectoryResult) error {
	pairs := o.Synth.Pairs()
	end := time.Now().Add(o.Duration)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	loop := func(into *Latency, f func() error) {
		wg.Go(func() {
			var ms []float64
			for time.Now().Before(end) && ctx.Err() == nil {
				start := time.Now()
				if err := f(); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				ms = append(ms, float64(time.Since(start))/1e6)
			}
			*into = Latency{N: len(ms), P50Ms: pct(ms, 50), P99Ms: pct(ms, 99), MaxMs: pct(ms, 100)}
		})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	loop(&r.Write, func() error {
		p := pairs[rng.IntN(len(pairs))]
		_, err := c.AddResult(ctx, directory.Result{Src: p.Src, Dst: p.Dst, Kind: directory.KindBandwidth,
			BandwidthBps: 1e8, BandwidthAfterSlowStartBps: 1e8, TestTimeS: 5, MeasuredAt: time.Now()})
		return err
	})
	loop(&r.Metrics, func() (err error) {
		r.MetricsBytes, err = scrape(ctx, base)
		return err
	})
	loop(&r.NetmapRead, func() error {
		if _, err := c.Sensors(ctx, ""); err != nil {
			return err
		}
		_, err := c.Results(ctx, directory.Query{Latest: true})
		return err
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	start := time.Now()
	rows, err := netmap.Fetch(ctx, c)
	r.NetmapS, r.NetmapRows = time.Since(start).Seconds(), len(rows)
	return err
}

// scrape reads /metrics whole and returns its size.
func scrape(ctx context.Context, base string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+string(benchToken))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("/metrics: %s", resp.Status)
	}
	return int(n), err
}
