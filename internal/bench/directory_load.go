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
	rng := rand.New(rand.NewPCG(1, 2))
	l := &loops{ctx: ctx, end: time.Now().Add(o.Duration)}
	l.run(&r.Write, func() error {
		p := pairs[rng.IntN(len(pairs))]
		_, err := c.AddResult(ctx, directory.Result{Src: p.Src, Dst: p.Dst, Kind: directory.KindBandwidth,
			BandwidthBps: 1e8, BandwidthAfterSlowStartBps: 1e8, TestTimeS: 5, MeasuredAt: time.Now()})
		return err
	})
	l.run(&r.Metrics, func() (err error) {
		r.MetricsBytes, err = scrape(ctx, base)
		return err
	})
	l.run(&r.NetmapRead, func() error {
		if _, err := c.Sensors(ctx, ""); err != nil {
			return err
		}
		_, err := c.Results(ctx, directory.Query{Latest: true})
		return err
	})
	if err := l.wait(); err != nil {
		return err
	}
	start := time.Now()
	rows, err := netmap.Fetch(ctx, c)
	r.NetmapS, r.NetmapRows = time.Since(start).Seconds(), len(rows)
	return err
}

// loops run requests back to back, each kind in a goroutine of its own,
// until end.
type loops struct {
	ctx  context.Context
	end  time.Time
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

// run calls f again and again until l.end, its times going into into;
// an error stops it.
func (l *loops) run(into *Latency, f func() error) {
	l.wg.Go(func() {
		var ms []float64
		for time.Now().Before(l.end) && l.ctx.Err() == nil {
			start := time.Now()
			if err := f(); err != nil {
				l.mu.Lock()
				l.errs = append(l.errs, err)
				l.mu.Unlock()
				return
			}
			ms = append(ms, float64(time.Since(start))/1e6)
		}
		*into = Latency{N: len(ms), P50Ms: pct(ms, 50), P99Ms: pct(ms, 99), MaxMs: pct(ms, 100)}
	})
}

// wait waits for every loop and returns their errors.
func (l *loops) wait() error {
	l.wg.Wait()
	return errors.Join(l.errs...)
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
