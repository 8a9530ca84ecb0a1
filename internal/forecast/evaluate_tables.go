package forecast

import (
	"fmt"
	"io"

	"github.com/diperf/diperf/internal/human"
)

// WriteTables writes r's tables for people: each method's MAE and MSE
// over each series, by test time when there are several, and by test
// period.
func (r *Report) WriteTables(w io.Writer) {
	fmt.Fprintf(w, "trace %s; baseline %s\nadaptive: %s\n", r.Trace, r.Baseline, r.Ensemble)
	if !r.ByTestTime {
		fmt.Fprintln(w, "by test time: omitted, the trace has one test time (no test_time column, or one value in it)")
	} else {
		printByTestTime(w, r.Series)
	}
	for _, s := range r.Series {
		title := "whole trace"
		if r.ByTestTime {
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
func printByTestTime(w io.Writer, series []Evaluation) {
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
func printPeriods(w io.Writer, s Evaluation) {
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
