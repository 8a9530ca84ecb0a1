package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sync"
	"time"
)

// DashboardOptions configure the dashboard's cost benchmark: the
// controller benchmark run Rounds times without its dashboard and Rounds
// times with Browsers browsers watching it, alternately.
type DashboardOptions struct {
	Controller ControllerOptions // the testers, their rate and duration (RunArgs and Attach are set here)
	Browsers   int               // browsers open on the dashboard
	Browser    string            // "chromium" (headless Chromium processes) or "sse" (Go clients of /events)
	Rounds     int               // runs without and with, each
	// Paired runs each round's two controllers at the same time (each
	// with its own testers), so that both meet the same machine: the
	// rest of its load, and the browsers' own CPU, slow both alike.
	// Otherwise they run one after the other.
	Paired bool
	// CPUProfile is where the CPU profile of the last run with the
	// dashboard goes ("" = none).
	CPUProfile string
}

// DashboardRun is one run of the dashboard benchmark.
type DashboardRun struct {
	UI       bool    `json:"ui"`
	SendCPUS float64 `json:"controller_send_cpu_s"` // CPU from the start of the sending to the last session's end
	WindowS  float64 `json:"window_s"`              // that window: the duration and the drain
	CoreFrac float64 `json:"cpu_core"`              // SendCPUS / WindowS
	Sent     uint64  `json:"sent"`
	Stored   uint64  `json:"stored"`
	// Browsers is how many browsers the dashboard streamed to when the
	// sending ended (from its /metrics).
	Browsers int `json:"browsers_at_end"`
}

// DashboardResult is the JSON line `diperf bench dashboard` ends with.
type DashboardResult struct {
	Bench     string  `json:"bench"`
	Testers   int     `json:"testers"`
	Rate      float64 `json:"rate"`
	DurationS float64 `json:"duration_s"`
	Browsers  int     `json:"browsers"`
	Browser   string  `json:"browser"`
	Rounds    int     `json:"rounds"`
	Paired    bool    `json:"paired"`
	// WithoutCPUS and WithCPUS are the median controller CPU-seconds over
	// the sending windows of the runs without (--ui off) and with the
	// dashboard and its browsers; WithoutCore and WithCore the same per
	// second of window (cores).
	WithoutCPUS float64 `json:"without_cpu_s"`
	WithCPUS    float64 `json:"with_cpu_s"`
	WithoutCore float64 `json:"without_cpu_core"`
	WithCore    float64 `json:"with_cpu_core"`
	// CostCorePct is (WithCore − WithoutCore) × 100: the dashboard's
	// cost in % of one core.
	CostCorePct float64 `json:"cost_core_pct"`
	// RoundCostPct is the median over the rounds of each round's own
	// difference (with − without, % of a core): with paired runs, the
	// difference measured under the same conditions.
	RoundCostPct float64        `json:"round_cost_pct"`
	Runs         []DashboardRun `json:"runs"`
}

// Dashboard runs the dashboard's cost benchmark.
func Dashboard(ctx context.Context, o DashboardOptions, progress io.Writer) (*DashboardResult, error) {
	r := &DashboardResult{Bench: "dashboard", Testers: o.Controller.Testers, Rate: o.Controller.Rate,
		DurationS: o.Controller.Duration.Seconds(), Browsers: o.Browsers, Browser: o.Browser, Rounds: o.Rounds, Paired: o.Paired}
	for round := range o.Rounds {
		fmt.Fprintf(progress, "round %d of %d ...\n", round+1, o.Rounds)
		runs, err := dashboardRound(ctx, o, round == o.Rounds-1)
		if err != nil {
			return nil, err
		}
		for _, run := range runs {
			fmt.Fprintf(progress, "round %d, dashboard %s: controller %.2f CPU-s in %.1f s (%.2f%% of a core), %d browsers at the end\n",
				round+1, map[bool]string{false: "off", true: "on "}[run.UI], run.SendCPUS, run.WindowS, 100*run.CoreFrac, run.Browsers)
		}
		r.Runs = append(r.Runs, runs...)
	}
	pick := func(ui bool, f func(DashboardRun) float64) float64 {
		var v []float64
		for _, x := range r.Runs {
			if x.UI == ui {
				v = append(v, f(x))
			}
		}
		return median(v)
	}
	cpu := func(x DashboardRun) float64 { return x.SendCPUS }
	core := func(x DashboardRun) float64 { return x.CoreFrac }
	r.WithoutCPUS, r.WithCPUS = round(pick(false, cpu), 3), round(pick(true, cpu), 3)
	r.WithoutCore, r.WithCore = round(pick(false, core), 4), round(pick(true, core), 4)
	r.CostCorePct = round(100*(pick(true, core)-pick(false, core)), 2)
	var diffs []float64
	for i := 0; i+1 < len(r.Runs); i += 2 {
		diffs = append(diffs, 100*(r.Runs[i+1].CoreFrac-r.Runs[i].CoreFrac))
	}
	r.RoundCostPct = round(median(diffs), 2)
	return r, nil
}

// dashboardRound runs the controller without the dashboard and with it,
// at the same time when o.Paired, else one after the other.
func dashboardRound(ctx context.Context, o DashboardOptions, last bool) ([]DashboardRun, error) {
	runs := make([]DashboardRun, 2)
	errs := make([]error, 2)
	if !o.Paired {
		for i := range runs {
			if runs[i], errs[i] = dashboardRun(ctx, o, i == 1, last); errs[i] != nil {
				return nil, errs[i]
			}
		}
		return runs, nil
	}
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() { runs[i], errs[i] = dashboardRun(ctx, o, i == 1, last) })
	}
	wg.Wait()
	return runs, errors.Join(errs...)
}

// dashboardRun runs the controller benchmark once, with the dashboard
// and the browsers (ui) or with --ui off.
func dashboardRun(ctx context.Context, o DashboardOptions, ui, last bool) (DashboardRun, error) {
	co := o.Controller
	run := DashboardRun{UI: ui}
	if !ui {
		co.RunArgs = []string{"--ui", "off"}
	} else {
		co.RunArgs = []string{"--ui", "127.0.0.1:0"}
		if last {
			co.CPUProfile = o.CPUProfile
		}
		co.Attach = func(ctx context.Context, log string) (func(), error) {
			b, err := openBrowsers(ctx, log, o.Browsers, o.Browser)
			if err != nil {
				return nil, err
			}
			return func() { run.Browsers = b.clients(); b.close() }, nil
		}
	}
	cr, err := Controller(ctx, co, io.Discard)
	if err != nil {
		return run, err
	}
	run.SendCPUS, run.Sent, run.Stored = cr.SendCPUS, cr.Sent, cr.Stored
	run.WindowS = round(cr.DurationS+cr.DrainS, 2)
	run.CoreFrac = round(cr.SendCPUS/run.WindowS, 4)
	if ui && run.Browsers < o.Browsers {
		return run, fmt.Errorf("bench: only %d of the %d browsers were still on the dashboard when the sending ended", run.Browsers, o.Browsers)
	}
	return run, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Sorted(slices.Values(v))
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// dashURLRE finds the dashboard's URL in the controller's log.
var dashURLRE = regexp.MustCompile(`diperf: live dashboard: (http://(\S+?)/\?token=(\S+))`)

// dashboardURL waits for the controller to log its dashboard's URL and
// returns it, its address and its token.
func dashboardURL(ctx context.Context, log string) (url, addr, token string, err error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		b, _ := os.ReadFile(log)
		if m := dashURLRE.FindSubmatch(b); m != nil {
			return string(m[1]), string(m[2]), string(m[3]), nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", "", "", fmt.Errorf("bench: the controller logged no dashboard URL in 30 s (%s)", log)
}
