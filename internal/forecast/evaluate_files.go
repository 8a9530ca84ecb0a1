package forecast

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteFiles writes into dir (made if need be) full.csv, periods.csv and,
// per series, the MAE and MSE against test period as SVG (Gloperf Figures
// 9 and 10), and with several test times the MAE against test time
// (Figure 3).
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	files := map[string][]byte{"full.csv": fullCSV(r), "periods.csv": periodsCSV(r)}
	for _, s := range r.Series {
		suffix := ""
		if r.ByTestTime {
			suffix = "-" + strings.ReplaceAll(s.TestTime, "/", "_")
		}
		files["mae-by-period"+suffix+".svg"] = periodChart(s, "MAE", func(p PeriodScore) float64 { return p.MAE })
		files["mse-by-period"+suffix+".svg"] = periodChart(s, "MSE", func(p PeriodScore) float64 { return p.MSE })
	}
	if r.ByTestTime {
		if c := testTimeChart(r.Series); c != nil {
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
func fullCSV(r *Report) []byte {
	var b strings.Builder
	b.WriteString("test_time,method,mae,mse,n\n")
	for _, s := range r.Series {
		for _, sc := range s.Full {
			fmt.Fprintf(&b, "%s,%s,%s,%s,%d\n", s.TestTime, sc.Method, num(sc.MAE), num(sc.MSE), sc.N)
		}
	}
	return []byte(b.String())
}

// periodsCSV is test_time,n,seconds,offsets,method,mae,mse,min_mae,max_mae.
func periodsCSV(r *Report) []byte {
	var b strings.Builder
	b.WriteString("test_time,n,seconds,offsets,method,mae,mse,min_mae,max_mae\n")
	for _, s := range r.Series {
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
func periodChart(s Evaluation, what string, of func(PeriodScore) float64) []byte {
	var x []float64
	var lines []Line
	xLabel := "test period (s)"
	for _, p := range s.Periods {
		v := p.Seconds
		if v == 0 {
			v, xLabel = float64(p.N), "test period (measurements)"
		}
		x = append(x, v)
		for i, sc := range p.Scores {
			if i == len(lines) {
				lines = append(lines, Line{Name: sc.Method})
			}
			lines[i].Y = append(lines[i].Y, of(sc))
		}
	}
	title := what + " by test period"
	if s.TestTime != "" {
		title += ", test time " + s.TestTime
	}
	return ChartSVG(title, xLabel, what, x, lines)
}

// testTimeChart draws each method's whole-series MAE against the test
// time, nil when the test times are not finite numbers from 0 up.
func testTimeChart(series []Evaluation) []byte {
	var x []float64
	var lines []Line
	for _, s := range series {
		v, err := strconv.ParseFloat(strings.TrimSuffix(s.TestTime, "s"), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 1) {
			return nil
		}
		x = append(x, v)
		for i, sc := range s.Full {
			if i == len(lines) {
				lines = append(lines, Line{Name: sc.Method})
			}
			lines[i].Y = append(lines[i].Y, sc.MAE)
		}
	}
	return ChartSVG("MAE by test time (whole series)", "test time", "MAE", x, lines)
}
