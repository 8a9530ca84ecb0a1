package peers

import (
	"context"
	"fmt"
	"github.com/diperf/diperf/internal/clock"
	"io"
	"time"

	"github.com/diperf/diperf/internal/stats"
)

// Options configure a peer benchmark.
type Options struct {
	Tools   []Tool        // the tools to measure (nil = Defaults())
	Load    Load          // URL empty: a private nginx is started (Nginx options)
	Rounds  int           // rounds; each runs every tool once, in a rotated order (0 = 3)
	Pause   time.Duration // between runs, so that one tool's closing connections do not load the next
	Install bool          // install missing tools (and nginx) instead of skipping them
	Nginx   NginxOptions
}

// Summary is one tool's medians over the rounds.
type Summary struct {
	Tool            string   `json:"tool"`
	Runs            int      `json:"runs"`
	RequestsPerS    float64  `json:"requests_per_s"`
	P50Ms           float64  `json:"p50_ms"`
	P99Ms           float64  `json:"p99_ms"`
	CPUS            float64  `json:"cpu_s"`
	RequestsPerCPUS float64  `json:"requests_per_cpu_s"`
	Errors          int64    `json:"errors"` // failed requests over all runs
	Results         []Result `json:"results"`
}

// Report is what a peer benchmark found.
type Report struct {
	Load      Load              `json:"load"`
	Rounds    int               `json:"rounds"`
	Summaries []Summary         `json:"summaries"` // in the order of Options.Tools, measured tools only
	Skipped   map[string]string `json:"skipped,omitempty"`
}

// Run measures every available tool (installing missing ones when asked)
// for o.Rounds rounds, alternating: round r runs the tools starting at the
// r-th, so no tool always goes first or follows the same neighbour.
// progress gets one line per run.
func Run(ctx context.Context, o Options, progress io.Writer) (Report, error) {
	o = o.withDefaults()
	rep := Report{Load: o.Load, Rounds: o.Rounds, Skipped: map[string]string{}}
	tools := ready(ctx, o, rep.Skipped, progress)
	if len(tools) == 0 {
		return rep, fmt.Errorf("no peer tool can run here: %v", rep.Skipped)
	}
	if rep.Load.URL == "" {
		if o.Install {
			if err := InstallNginx(ctx); err != nil {
				return rep, err
			}
		}
		ng, err := StartNginx(ctx, o.Nginx)
		if err != nil {
			return rep, err
		}
		defer ng.Stop()
		rep.Load.URL = ng.URL
	}
	results, err := rounds(ctx, tools, rep.Load, o, progress)
	if err != nil {
		return rep, err
	}
	for _, t := range tools {
		rep.Summaries = append(rep.Summaries, summarize(t.Name(), results[t.Name()]))
	}
	return rep, nil
}

func (o Options) withDefaults() Options {
	if o.Tools == nil {
		o.Tools = Defaults()
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if o.Load.Connections <= 0 {
		o.Load.Connections = 50
	}
	if o.Load.Duration <= 0 {
		o.Load.Duration = 5 * time.Second
	}
	return o
}

// ready is the tools that can run, after installing the missing ones when
// asked; the others are noted in skipped with the reason.
func ready(ctx context.Context, o Options, skipped map[string]string, progress io.Writer) []Tool {
	var out []Tool
	for _, t := range o.Tools {
		err := t.Available()
		if err != nil && o.Install {
			fmt.Fprintf(progress, "installing %s …\n", t.Name())
			if ierr := t.Install(ctx); ierr != nil {
				err = fmt.Errorf("install: %w", ierr)
			} else {
				err = t.Available()
			}
		}
		if err != nil {
			skipped[t.Name()] = err.Error()
			fmt.Fprintf(progress, "skipping %s: %v\n", t.Name(), err)
			continue
		}
		out = append(out, t)
	}
	return out
}

// rounds runs the rotated rounds and returns each tool's results.
func rounds(ctx context.Context, tools []Tool, l Load, o Options, progress io.Writer) (map[string][]Result, error) {
	results := map[string][]Result{}
	for r := range o.Rounds {
		for _, t := range Rotation(tools, r) {
			if !clock.Sleep(ctx, o.Pause) {
				return nil, ctx.Err()
			}
			res, err := t.Run(ctx, l)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", r+1, t.Name(), err)
			}
			res.Tool = t.Name()
			fmt.Fprintf(progress, "round %d %-8s %10.0f req/s  p50 %6.2f ms  p99 %6.2f ms  cpu %5.2f s\n",
				r+1, t.Name(), res.RequestsPerS, res.P50Ms, res.P99Ms, res.CPUS)
			results[t.Name()] = append(results[t.Name()], res)
		}
	}
	return results, nil
}

// Rotation is the order of round r: tools rotated left by r.
func Rotation[T any](tools []T, r int) []T {
	n := len(tools)
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, tools[(i+r)%n])
	}
	return out
}

// summarize takes the median of each figure over a tool's runs (each
// figure's own median: they may come from different runs).
func summarize(tool string, rs []Result) Summary {
	s := Summary{Tool: tool, Runs: len(rs), Results: rs}
	col := func(f func(Result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return stats.Median(v)
	}
	s.RequestsPerS = col(func(r Result) float64 { return r.RequestsPerS })
	s.P50Ms = col(func(r Result) float64 { return r.P50Ms })
	s.P99Ms = col(func(r Result) float64 { return r.P99Ms })
	s.CPUS = col(func(r Result) float64 { return r.CPUS })
	s.RequestsPerCPUS = col(Result.RequestsPerCPUS)
	for _, r := range rs {
		s.Errors += r.Errors
	}
	return s
}

// WriteTable prints the summaries as an aligned table.
func WriteTable(w io.Writer, rep Report) error {
	_, err := fmt.Fprintf(w, "%d connections, %s per run, %d rounds (medians), %s\n%-8s %10s %9s %9s %7s %12s %7s\n",
		rep.Load.Connections, rep.Load.Duration, rep.Rounds, rep.Load.URL,
		"tool", "req/s", "p50 ms", "p99 ms", "cpu s", "req/cpu-s", "errors")
	for _, s := range rep.Summaries {
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%-8s %10.0f %9.3f %9.3f %7.2f %12.0f %7d\n",
			s.Tool, s.RequestsPerS, s.P50Ms, s.P99Ms, s.CPUS, s.RequestsPerCPUS, s.Errors)
	}
	for name, why := range rep.Skipped {
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%-8s skipped: %s\n", name, why)
	}
	return err
}
