package search

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// stepColumns are search.csv's columns before the SLOs'; each SLO i (from
// 1, in the order given) adds sloI (its text) and sloI_value, _low,
// _high, _over, _of, _decision, _weak.
var stepColumns = []string{"step", "load", "from", "to", "seconds", "warmup_s", "settled", "refused", "calls", "measured",
	"throughput", "decision", "weak", "binding", "why"}

// sloColumns are the suffixes of each SLO's columns.
var sloColumns = []string{"", "_value", "_low", "_high", "_over", "_of", "_decision", "_weak"}

// WriteCSV writes steps as search.csv: one row per step, read by header.
// Every step has the same SLOs (those of the search); an unknown figure
// is empty.
func WriteCSV(w io.Writer, steps []StepRecord) error {
	cw := csv.NewWriter(w)
	n := 0
	if len(steps) > 0 {
		n = len(steps[0].SLOs)
	}
	head := append([]string{}, stepColumns...)
	for i := 1; i <= n; i++ {
		for _, c := range sloColumns {
			head = append(head, "slo"+strconv.Itoa(i)+c)
		}
	}
	_ = cw.Write(head)
	for _, r := range steps {
		_ = cw.Write(row(&r, n))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("search.csv: %w", err)
	}
	return nil
}

// row is step r's row with n SLOs.
func row(r *StepRecord, n int) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	out := []string{strconv.Itoa(r.Step), f(r.Load), strconv.FormatInt(r.From, 10), strconv.FormatInt(r.To, 10), strconv.Itoa(r.Seconds), strconv.Itoa(r.WarmupS),
		strconv.FormatBool(r.Settled), strconv.Itoa(r.Refused), strconv.FormatUint(r.Calls, 10),
		strconv.FormatUint(r.Measured, 10), f(r.Throughput), r.Decision, strconv.FormatBool(r.Weak), r.Binding, r.Why}
	p := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f(*v)
	}
	for i := range n {
		if i >= len(r.SLOs) {
			out = append(out, make([]string, len(sloColumns))...)
			continue
		}
		s := r.SLOs[i]
		out = append(out, s.SLO, p(s.Value), p(s.Low), p(s.High), strconv.FormatUint(s.Over, 10),
			strconv.FormatUint(s.Of, 10), s.Decision, strconv.FormatBool(s.Weak))
	}
	return out
}
