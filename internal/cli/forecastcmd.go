package cli

import (
	"context"
	"fmt"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/netmap"
)

// pairForecast is one kind's forecast of `diperf forecast`.
type pairForecast struct {
	Value      float64  `json:"value"`
	Error      float64  `json:"error"`
	Method     string   `json:"method"`
	Basis      string   `json:"basis"`         // measured, hierarchy, or reverse (error unknown)
	Via        []string `json:"via,omitempty"` // an estimate's sensors
	ErrorKnown bool     `json:"error_known"`
	Usable     bool     `json:"usable"` // false: the other direction's figure, not to be used for this one
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
// and its basis: the pair's own forecast (and the method that made it),
// an estimate along the hierarchy, or the other direction's figure
// (error unknown: shown, never usable, exit 2).
func forecastCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "forecast", "A B --directory URL [--token-file F] [--json | --trace [--kind bandwidth|latency]]")
	var m meshFlags
	m.add(fs)
	asJSON := fs.Bool("json", false, "print JSON: bandwidth_bps and latency_ms, each {value, error, method, basis, via, error_known, usable}")
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
	pf, err := netmap.Forecast(ctx, c, pos[0], pos[1])
	if err != nil {
		return fmt.Errorf("reading the forecasts of %s → %s: %w", pos[0], pos[1], err)
	}
	a := forecastAnswer{Src: pos[0], Dst: pos[1], BandwidthBps: answerOf(pf.Bandwidth), LatencyMs: answerOf(pf.Latency)}
	if a.BandwidthBps == nil && a.LatencyMs == nil {
		return errs.Usagef("no forecast for %s → %s yet: %s does not test %s, or has not twice, and no estimate along the hierarchy has every hop forecast (diperf netmap shows the measured pairs)",
			pos[0], pos[1], pos[0], pos[1])
	}
	if *asJSON {
		err = printJSON(e, a)
	} else {
		printForecast(e, a)
	}
	if err == nil && !pf.Bandwidth.Usable && !pf.Latency.Usable {
		err = errs.Usagef("no usable forecast for %s → %s: only the other direction is forecast, which says nothing of this one (error unknown); measure it: diperf probe %s %s",
			a.Src, a.Dst, a.Src, a.Dst)
	}
	return err
}

// answerOf is f as `diperf forecast` gives it, nil when none is known.
func answerOf(f netmap.Figure) *pairForecast {
	if f.Basis == "" {
		return nil
	}
	return &pairForecast{Value: f.Value, Error: f.Error, Method: f.Method, Basis: f.Basis, Via: f.Via,
		ErrorKnown: f.ErrorKnown, Usable: f.Usable}
}
