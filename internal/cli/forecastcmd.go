package cli

import (
	"context"
	"fmt"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/human"
	"github.com/diperf/diperf/internal/sensor"
)

// pairForecast is one kind's forecast of `diperf forecast`.
type pairForecast struct {
	Value  float64 `json:"value"`
	Error  float64 `json:"error"`
	Method string  `json:"method"`
}

// forecastAnswer is `diperf forecast --json`'s answer.
type forecastAnswer struct {
	Src          string        `json:"src"`
	Dst          string        `json:"dst"`
	BandwidthBps *pairForecast `json:"bandwidth_bps"`
	LatencyMs    *pairForecast `json:"latency_ms"`
}

// forecastCmd is `diperf forecast A B`: what bandwidth and latency the
// sensors' latest forecasts give for A → B, each with its expected error
// and the method that made it.
func forecastCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "forecast", "A B --directory URL [--token-file F] [--json | --trace [--kind bandwidth|latency]]")
	var m meshFlags
	m.add(fs)
	asJSON := fs.Bool("json", false, "print JSON: bandwidth_bps and latency_ms, each {value, error, method}")
	trace := fs.Bool("trace", false, "print the pair's results in the directory as a trace (CSV: time, value, test_time) that 'diperf sensor evaluate' reads, instead of the forecast")
	kind := fs.String("kind", "bandwidth", "with --trace: the results to export, bandwidth (value in bit/s) or latency (ms)")
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	c, err := m.client()
	if err != nil {
		return err
	}
	if *trace {
		return forecastTrace(ctx, e.stdout, c, pos[0], pos[1], *kind)
	}
	fs2, err := c.Forecasts(ctx, directory.Query{Src: pos[0], Dst: pos[1], Latest: true})
	if err != nil {
		return fmt.Errorf("reading the forecasts of %s → %s: %w", pos[0], pos[1], err)
	}
	a := forecastAnswer{Src: pos[0], Dst: pos[1]}
	for _, f := range fs2 {
		pf := &pairForecast{Value: f.Value, Error: f.Error, Method: f.Method}
		switch sensor.Kind(f.Kind) {
		case sensor.Bandwidth:
			a.BandwidthBps = pf
		case sensor.Latency:
			a.LatencyMs = pf
		}
	}
	if a.BandwidthBps == nil && a.LatencyMs == nil {
		return errs.Usagef("no forecast for %s → %s yet: %s does not test %s, or has not twice (diperf netmap shows estimates along the hierarchy)",
			pos[0], pos[1], pos[0], pos[1])
	}
	if *asJSON {
		return printJSON(e, a)
	}
	if f := a.BandwidthBps; f != nil {
		fmt.Fprintf(e.stdout, "bandwidth %s → %s: %s ± %s (%s)\n", a.Src, a.Dst, human.Bits(f.Value), human.Bits(f.Error), f.Method)
	}
	if f := a.LatencyMs; f != nil {
		fmt.Fprintf(e.stdout, "latency   %s → %s: %s ± %s (%s)\n", a.Src, a.Dst, human.Millis(f.Value), human.Millis(f.Error), f.Method)
	}
	return nil
}
