package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/forecast"
	"github.com/diperf/diperf/internal/human"
)

// evaluation is what `diperf sensor evaluate` prints with --json.
type evaluation struct {
	Trace    string `json:"trace"`
	Baseline string `json:"baseline"`
	// Ensemble says how the row named adaptive forecasts.
	Ensemble string `json:"ensemble"`
	// ByTestTime is false when the trace has one test time (no test_time
	// column): its one series is Series[0].
	ByTestTime bool                  `json:"by_test_time"`
	Series     []forecast.Evaluation `json:"series"`
}

// sensorEvaluateCmd implements `diperf sensor evaluate TRACE.csv [--json]
// [--out DIR]`: Gloperf §4's analysis of a trace.
func sensorEvaluateCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "sensor evaluate", "TRACE.csv [--json] [--out DIR]")
	asJSON := fs.Bool("json", false, "print one JSON object")
	out := fs.String("out", "", "also write the tables (CSV) and graphs (SVG) into this directory")
	o := forecast.Options{}
	fs.IntVar(&o.MaxPeriod, "max-period", forecast.DefaultMaxPeriod, "longest test period, in measurements (subsamples keep at least 10)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the random-guess baseline")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if o.MaxPeriod < 1 {
		return errs.Usagef("--max-period must be at least 1, got %d", o.MaxPeriod)
	}
	ev, err := evaluateTrace(pos[0], o)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := writeEvaluation(*out, ev); err != nil {
			return err
		}
	}
	if *asJSON {
		if err := json.NewEncoder(e.stdout).Encode(ev); err != nil {
			return fmt.Errorf("encode evaluation: %w", err)
		}
		return nil
	}
	printEvaluation(e.stdout, ev)
	return nil
}

// evaluateTrace reads the trace at path and evaluates each of its series.
func evaluateTrace(path string, o forecast.Options) (*evaluation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Usage(fmt.Errorf("open trace: %w", err), "give a CSV file with columns time and value")
	}
	defer f.Close()
	series, err := forecast.ReadTrace(f)
	if err != nil {
		return nil, errs.Usage(fmt.Errorf("%s: %w", path, err), "columns: time (Unix seconds or RFC 3339), value, optionally test_time")
	}
	if err := enoughPoints(path, series); err != nil {
		return nil, err
	}
	ev := &evaluation{Trace: path, ByTestTime: len(series) > 1,
		Baseline: fmt.Sprintf("random: each forecast drawn uniformly from the series' whole range [min, max] (Gloperf §4), PCG seeded with %d", o.Seed),
		Ensemble: forecast.EnsembleDescription}
	for _, s := range series {
		x := forecast.Evaluate(s.Points, o)
		x.TestTime = s.TestTime
		ev.Series = append(ev.Series, x)
	}
	return ev, nil
}

// enoughPoints refuses a trace with a series of fewer than two
// measurements: the first is only observed, so nothing would be scored.
func enoughPoints(path string, series []forecast.Series) error {
	for _, s := range series {
		if n := len(s.Points); n < 2 {
			what := "the trace has"
			if s.TestTime != "" {
				what = fmt.Sprintf("test time %q has", s.TestTime)
			}
			return errs.Usagef("%s: %s %d measurement: a forecast is scored from the second on, give at least 2", path, what, n)
		}
	}
	return nil
}

// printEvaluation prints the tables for people.
func printEvaluation(w io.Writer, ev *evaluation) {
	fmt.Fprintf(w, "trace %s; baseline %s\nadaptive: %s\n", ev.Trace, ev.Baseline, ev.Ensemble)
	if !ev.ByTestTime {
		fmt.Fprintln(w, "by test time: omitted, the trace has one test time (no test_time column, or one value in it)")
	} else {
		printByTestTime(w, ev.Series)
	}
	for _, s := range ev.Series {
		title := "whole trace"
		if ev.ByTestTime {
			title = "test time " + s.TestTime
		}
		fmt.Fprintf(w, "\n%s: %d measurements\n%-12s %14s %14s %8s\n", title, s.Points, "method", "MAE", "MSE", "scored")
		for _, sc := range s.Full {
			fmt.Fprintf(w, "%-12s %14s %14s %8d\n", sc.Method, human.Number(sc.MAE, 6), human.Number(sc.MSE, 6), sc.N)
		}
		printPeriods(w, s)
	}
}

// printByTestTime prints each method's whole-series MAE by test time.
func printByTestTime(w io.Writer, series []forecast.Evaluation) {
	fmt.Fprintf(w, "\nby test time (MAE of the whole series of each test time):\n%-10s", "test time")
	for _, sc := range series[0].Full {
		fmt.Fprintf(w, " %12s", sc.Method)
	}
	fmt.Fprintln(w)
	for _, s := range series {
		fmt.Fprintf(w, "%-10s", s.TestTime)
		for _, sc := range s.Full {
			fmt.Fprintf(w, " %12s", human.Number(sc.MAE, 6))
		}
		fmt.Fprintln(w)
	}
}

// printPeriods prints the MAE by test period.
func printPeriods(w io.Writer, s forecast.Evaluation) {
	if len(s.Periods) == 0 {
		return
	}
	fmt.Fprintf(w, "by test period (every n-th measurement; MAE averaged over the n offsets):\n%6s %10s", "n", "seconds")
	for _, sc := range s.Periods[0].Scores {
		fmt.Fprintf(w, " %12s", sc.Method)
	}
	fmt.Fprintln(w)
	for _, p := range s.Periods {
		fmt.Fprintf(w, "%6d %10s", p.N, human.Number(p.Seconds, 4))
		for _, sc := range p.Scores {
			fmt.Fprintf(w, " %12s", human.Number(sc.MAE, 6))
		}
		fmt.Fprintln(w)
	}
}

// writeEvaluation writes full.csv, periods.csv and, per series, the MAE
// and MSE against test period as SVG (Gloperf Figures 9 and 10), and with
// several test times the MAE against test time (Figure 3).
func writeEvaluation(dir string, ev *evaluation) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	files := map[string][]byte{"full.csv": fullCSV(ev), "periods.csv": periodsCSV(ev)}
	for _, s := range ev.Series {
		suffix := ""
		if ev.ByTestTime {
			suffix = "-" + strings.ReplaceAll(s.TestTime, "/", "_")
		}
		files["mae-by-period"+suffix+".svg"] = periodChart(s, "MAE", func(p forecast.PeriodScore) float64 { return p.MAE })
		files["mse-by-period"+suffix+".svg"] = periodChart(s, "MSE", func(p forecast.PeriodScore) float64 { return p.MSE })
	}
	if ev.ByTestTime {
		if c := testTimeChart(ev.Series); c != nil {
			files["mae-by-test-time.svg"] = c
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// fullCSV is test_time,method,mae,mse,n.
func fullCSV(ev *evaluation) []byte {
	var b strings.Builder
	b.WriteString("test_time,method,mae,mse,n\n")
	for _, s := range ev.Series {
		for _, sc := range s.Full {
			fmt.Fprintf(&b, "%s,%s,%s,%s,%d\n", s.TestTime, sc.Method, num(sc.MAE), num(sc.MSE), sc.N)
		}
	}
	return []byte(b.String())
}

// periodsCSV is test_time,n,seconds,offsets,method,mae,mse,min_mae,max_mae.
func periodsCSV(ev *evaluation) []byte {
	var b strings.Builder
	b.WriteString("test_time,n,seconds,offsets,method,mae,mse,min_mae,max_mae\n")
	for _, s := range ev.Series {
		for _, p := range s.Periods {
			for _, sc := range p.Scores {
				fmt.Fprintf(&b, "%s,%d,%s,%d,%s,%s,%s,%s,%s\n", s.TestTime, p.N, num(p.Seconds), p.Offsets,
					sc.Method, num(sc.MAE), num(sc.MSE), num(sc.MinMAE), num(sc.MaxMAE))
			}
		}
	}
	return []byte(b.String())
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }

// periodChart draws one error measure of every method against the test
// period in seconds (in measurements when the trace has no spacing).
func periodChart(s forecast.Evaluation, what string, of func(forecast.PeriodScore) float64) []byte {
	var x []float64
	var lines []forecast.Line
	xLabel := "test period (s)"
	for _, p := range s.Periods {
		v := p.Seconds
		if v == 0 {
			v, xLabel = float64(p.N), "test period (measurements)"
		}
		x = append(x, v)
		for i, sc := range p.Scores {
			if i == len(lines) {
				lines = append(lines, forecast.Line{Name: sc.Method})
			}
			lines[i].Y = append(lines[i].Y, of(sc))
		}
	}
	title := what + " by test period"
	if s.TestTime != "" {
		title += ", test time " + s.TestTime
	}
	return forecast.ChartSVG(title, xLabel, what, x, lines)
}

// testTimeChart draws each method's whole-series MAE against the test
// time, nil when the test times are not finite numbers from 0 up.
func testTimeChart(series []forecast.Evaluation) []byte {
	var x []float64
	var lines []forecast.Line
	for _, s := range series {
		v, err := strconv.ParseFloat(strings.TrimSuffix(s.TestTime, "s"), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 1) {
			return nil
		}
		x = append(x, v)
		for i, sc := range s.Full {
			if i == len(lines) {
				lines = append(lines, forecast.Line{Name: sc.Method})
			}
			lines[i].Y = append(lines[i].Y, sc.MAE)
		}
	}
	return forecast.ChartSVG("MAE by test time (whole series)", "test time", "MAE", x, lines)
}
