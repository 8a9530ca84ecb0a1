package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// benchCmd dispatches `diperf bench WHAT`. Every benchmark ends with one
// JSON line of figures (README: every bench ends with one JSON line).
func benchCmd(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "controller-gen" { // hidden: a child of bench controller
		return benchControllerGenCmd(ctx, e, args[1:])
	}
	if len(args) > 0 && args[0] == bench.NullRun { // hidden: the controller of bench controller --transport ssh
		return benchControllerRunCmd(ctx, e, args[1:])
	}
	if len(args) == 0 || benchCommands[args[0]] == nil {
		return errs.Usagef("usage: diperf bench %s [flags]", strings.Join(benchNames(), "|"))
	}
	return benchCommands[args[0]](ctx, e, args[1:])
}

// benchCommands are the subcommands of `diperf bench`.
var benchCommands = map[string]func(context.Context, *env, []string) error{
	"clock":      benchClockCmd,
	"timeserver": benchTimeserverCmd,
	"analyze":    benchAnalyzeCmd,
	"http":       benchHTTPCmd,
	"controller": benchControllerCmd,
	"dashboard":  benchDashboardCmd,
	"directory":  benchDirectoryCmd,
	"tree":       benchTreeCmd,
	"search":     benchSearchCmd,
}

// benchNames lists the bench subcommands in order.
func benchNames() []string {
	return slices.Sorted(maps.Keys(benchCommands))
}

func benchClockCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench clock", "[flags]")
	o := bench.ClockOptions{Seed: 1}
	fs.IntVar(&o.Testers, "testers", 100, "simulated testers")
	fs.DurationVar(&o.Skew, "skew", time.Hour, "injected clock offsets spread over ±this")
	fs.Float64Var(&o.DriftPPM, "drift-ppm", 30, "injected clock drifts spread over ±this (ppm)")
	fs.DurationVar(&o.Duration, "duration", 60*time.Second, "how long to run")
	fs.DurationVar(&o.SyncInterval, "sync-interval", 5*time.Second, "re-sync period")
	fs.IntVar(&o.Probes, "probes", experiment.DefaultSyncProbes, "probes per sync burst")
	fs.StringVar(&o.Transport, "transport", experiment.SyncUDP, "time server transport: udp or tcp")
	fs.DurationVar(&o.Delay, "delay", 0, "one-way path delay to the time server (through a delaying proxy)")
	fs.DurationVar(&o.DelaySpread, "delay-spread", 0, "each tester's delay is drawn from delay ± this")
	fs.DurationVar(&o.Jitter, "jitter", 0, "extra per-packet delay, uniform in [0, jitter), each way")
	fs.DurationVar(&o.Asymmetry, "asymmetry", 0, "the way to the server is this much longer than the way back")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed for the injected clocks and paths")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if o.Testers < 1 || o.Duration <= 0 || o.SyncInterval <= 0 || o.Probes < 1 {
		return errs.Usagef("--testers, --duration, --sync-interval and --probes must be positive")
	}
	r, err := bench.Clock(ctx, o, e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "error of the estimate of global time between syncs (%d samples): p50 %.1f µs, p90 %.1f µs, p99 %.1f µs, max %.1f µs\n",
		r.Samples, r.P50us, r.P90us, r.P99us, r.MaxUs)
	fmt.Fprintf(e.stdout, "error bound held: %.2f%% between syncs, %.2f%% at %d syncs (%d failed); probe RTT p50 %.1f µs\n",
		100*r.BoundCoverage, 100*r.SyncBoundCoverage, r.Syncs, r.SyncFailures, r.RTTp50us)
	return printJSON(e, r)
}

func benchAnalyzeCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench analyze", "[flags]")
	var o bench.AnalyzeOptions
	fs.Int64Var(&o.Synth.Samples, "samples", 10_000_000, "calls in the synthetic run")
	fs.IntVar(&o.Synth.Testers, "testers", 1000, "testers in the synthetic run")
	fs.DurationVar(&o.Synth.StartInterval, "tester-start-interval", 50*time.Millisecond, "ramp-up: one more tester every interval")
	fs.DurationVar(&o.Synth.BaseRT, "service-time", 10*time.Millisecond, "response time of the synthetic service when idle")
	fs.IntVar(&o.Synth.Capacity, "workers", 0, "calls in flight the synthetic service takes before slowing down (default testers/4)")
	fs.IntVar(&o.Synth.FailEvery, "fail-every", 100, "every Nth call fails (0: none)")
	fs.Uint64Var(&o.Synth.Seed, "seed", 1, "seed of the synthetic run")
	fs.StringVar(&o.Dir, "dir", "", "write the synthetic run here (default: a temporary directory)")
	fs.BoolVar(&o.Keep, "keep", false, "keep the synthetic run directory")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if o.Synth.Samples < 1 || o.Synth.Testers < 1 || o.Synth.StartInterval <= 0 || o.Synth.BaseRT <= 0 {
		return errs.Usagef("--samples, --testers, --tester-start-interval and --service-time must be positive")
	}
	if o.Synth.Capacity <= 0 {
		o.Synth.Capacity = max(1, o.Synth.Testers/4)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	o.Exe = exe
	r, err := bench.Analyze(ctx, o, e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "analyzed %d samples from %d testers in %.2f s: %.0f samples/s, peak RSS %.0f MB\n",
		r.Samples, r.Testers, r.AnalyzeS, r.SamplesPerS, r.PeakRSSMB)
	return printJSON(e, r)
}

func printJSON(e *env, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, string(b))
	return err
}
