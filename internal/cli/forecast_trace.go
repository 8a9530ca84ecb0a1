package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/forecast"
)

// forecastTrace writes the directory's kind results for src → dst as a
// trace `diperf sensor evaluate` reads (forecast.WriteTrace): value in
// bit/s (bandwidth) or ms (latency), one series per test time.
func forecastTrace(ctx context.Context, w io.Writer, c *directory.Client, src, dst, kind string) error {
	if kind != directory.KindBandwidth && kind != directory.KindLatency {
		return errs.Usagef("--kind must be %s or %s, got %q", directory.KindBandwidth, directory.KindLatency, kind)
	}
	rs, err := c.Results(ctx, directory.Query{Src: src, Dst: dst, Kind: kind})
	if err != nil {
		return fmt.Errorf("reading the results of %s → %s: %w", src, dst, err)
	}
	if len(rs) == 0 {
		return errs.Usagef("no %s results for %s → %s in the directory: %s does not test %s, or has not yet", kind, src, dst, src, dst)
	}
	if err := forecast.WriteTrace(w, resultSeries(rs, kind)); err != nil {
		return fmt.Errorf("%s → %s: %w", src, dst, err)
	}
	return nil
}

// resultSeries splits results into one series per test time, each in
// time order: the value is the kind's (bit/s or ms).
func resultSeries(rs []directory.Result, kind string) []forecast.Series {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].MeasuredAt.Before(rs[j].MeasuredAt) })
	index := map[string]int{}
	var out []forecast.Series
	for _, r := range rs {
		tt := strconv.FormatFloat(r.TestTimeS, 'f', -1, 64)
		i, ok := index[tt]
		if !ok {
			i, index[tt] = len(out), len(out)
			out = append(out, forecast.Series{TestTime: tt})
		}
		v := r.BandwidthBps
		if kind == directory.KindLatency {
			v = r.LatencyMs
		}
		out[i].Points = append(out[i].Points, forecast.Measurement{At: r.MeasuredAt, Value: v})
	}
	return out
}
