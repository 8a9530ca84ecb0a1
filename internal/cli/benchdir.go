package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/errs"
)

// benchDirectoryCmd is `diperf bench directory`: what a result write, a
// /metrics scrape and a netmap query cost, all at once, against a
// directory holding a large history.
func benchDirectoryCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench directory", "[--sensors N --site N --results N --history D --duration D --dir DIR --keep]")
	var o bench.DirectoryOptions
	fs.IntVar(&o.Synth.Sensors, "sensors", 1000, "registered sensors")
	fs.IntVar(&o.Synth.Site, "site", 20, "sensors a site: each tests the others of its site, the first of each site the other sites' first")
	fs.Int64Var(&o.Synth.Results, "results", 10_000_000, "results in the history, round after round over the pairs")
	fs.DurationVar(&o.Synth.History, "history", 6*24*time.Hour, "the history spans this much time before now")
	fs.DurationVar(&o.Duration, "duration", 30*time.Second, "how long writes, scrapes and maps run together")
	fs.StringVar(&o.Dir, "dir", "", "make the database here (default: a temporary directory)")
	fs.BoolVar(&o.Keep, "keep", false, "keep the database")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if o.Synth.Sensors < 2 || o.Synth.Site < 2 || o.Synth.Results < 1 || o.Synth.History <= 0 || o.Duration <= 0 {
		return errs.Usagef("--sensors and --site must be at least 2, --results, --history and --duration positive")
	}
	r, err := bench.Directory(ctx, o, e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d sensors, %d pairs and kinds, %d results (loaded in %.0f s), database %.0f MB\n",
		r.Sensors, r.PairKinds, r.Results, r.LoadS, float64(r.DBBytes)/1e6)
	for _, l := range []struct {
		what string
		l    bench.Latency
	}{{"result write", r.Write}, {"/metrics", r.Metrics}, {"netmap query", r.NetmapRead}} {
		fmt.Fprintf(e.stdout, "%-13s %6d requests: p50 %8.1f ms, p99 %8.1f ms, max %8.1f ms\n", l.what, l.l.N, l.l.P50Ms, l.l.P99Ms, l.l.MaxMs)
	}
	fmt.Fprintf(e.stdout, "diperf netmap (the query and the map of %d pairs): %.1f s\n", r.NetmapRows, r.NetmapS)
	return printJSON(e, r)
}
