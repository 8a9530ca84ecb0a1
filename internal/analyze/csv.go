package analyze

import (
	"slices"
	"strconv"
	"strings"
)

// quantaHeader is the header of quanta.csv.
var quantaHeader = []string{
	"t_s", "load", "load_max", "active", "throughput", "ok", "failed",
	"rt_min_ms", "rt_median_ms", "rt_mean_ms", "rt_p90_ms", "rt_p99_ms", "rt_max_ms", "errors",
	"bytes", "bytes_per_s", "tester_bound",
}

// clientsHeader is the header of clients.csv.
var clientsHeader = []string{
	"index", "id", "host", "start_s", "end_s", "failed", "latency_ms",
	"ok", "failed_calls", "utilization", "mean_rt_ms", "p99_rt_ms", "avg_load",
	"peak_ok", "peak_failed", "peak_utilization", "peak_mean_rt_ms",
	"fairness", "median_rt_ms", "peak_fairness", "peak_median_rt_ms", "peak_p99_rt_ms",
}

// quantaRows renders the quanta as CSV records.
func quantaRows(qs []Quantum) [][]string {
	rows := make([][]string, len(qs))
	for i, q := range qs {
		rows[i] = []string{
			ff(q.T), ff(q.Load), strconv.Itoa(q.LoadMax), strconv.Itoa(q.Active),
			ff(q.Throughput), strconv.Itoa(q.OK), strconv.Itoa(q.Failed),
			ff(q.RT.Min), ff(q.RT.Median), ff(q.RT.Mean), ff(q.RT.P90), ff(q.RT.P99), ff(q.RT.Max),
			formatErrors(q.Errors), strconv.FormatInt(q.Bytes, 10), ff(q.BytesPerS), q.TesterBound,
		}
	}
	return rows
}

// clientRows renders the clients as CSV records.
func clientRows(cs []Client) [][]string {
	rows := make([][]string, len(cs))
	for i, c := range cs {
		rows[i] = []string{
			strconv.Itoa(c.Index), c.ID, c.Host, ff(c.StartS), ff(c.EndS),
			strconv.FormatBool(c.Failed), ff(c.LatencyMs),
			strconv.Itoa(c.Whole.OK), strconv.Itoa(c.Whole.Failed), ff(c.Whole.Utilization),
			ff(c.Whole.MeanRTms), ff(c.Whole.P99RTms), ff(c.Whole.AvgLoad),
			strconv.Itoa(c.Peak.OK), strconv.Itoa(c.Peak.Failed), ff(c.Peak.Utilization),
			ff(c.Peak.MeanRTms),
			ff(c.Whole.Fairness), ff(c.Whole.MedianRTms), ff(c.Peak.Fairness), ff(c.Peak.MedianRTms), ff(c.Peak.P99RTms),
		}
	}
	return rows
}

// formatErrors renders class counts as class=n;class=n, sorted by class.
func formatErrors(m map[string]int) string {
	classes := make([]string, 0, len(m))
	for c := range m {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	var b strings.Builder
	for i, c := range classes {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(c)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(m[c]))
	}
	return b.String()
}

// ff formats a float for the CSV files: rounded to 4 decimals, trailing
// zeros dropped ("1.5", "0.3333", "2").
func ff(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
