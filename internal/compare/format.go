package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/human"
)

// Format prints the comparison as a table, one metric a line (A, B, B − A,
// relative difference, 95% interval and whether it excludes zero), then
// the verdicts.
func (c *Comparison) Format(w io.Writer) error {
	rows := [][]string{{"metric", "A", "B", "B−A", "%", "95% CI of B−A", "significant"}}
	unsaturated := false
	for i := range c.Metrics {
		rows = append(rows, formatRow(&c.Metrics[i]))
		if s := c.Metrics[i].Saturated; s != nil && (!s.A || !s.B) {
			unsaturated = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n\n", runText(c.A), runText(c.B))
	writeTable(&b, rows)
	if unsaturated {
		b.WriteString("(*) not shown saturated: the highest load reached and the throughput there\n")
		for _, r := range []struct {
			side string
			run  Run
		}{{"A", c.A}, {"B", c.B}} {
			if r.run.Saturation != "" {
				fmt.Fprintf(&b, "(*) %s: %s\n", r.side, r.run.Saturation)
			}
		}
	}
	fmt.Fprintf(&b, "\nresponse time: %s\nthroughput:    %s\n", c.Verdicts.ResponseTime, c.Verdicts.Throughput)
	_, err := io.WriteString(w, b.String())
	return err
}

// runText names a run and counts its calls.
func runText(r Run) string {
	where := r.Name
	if r.Dir != "" {
		where += " (" + r.Dir + ")"
	}
	return fmt.Sprintf("%s: %d calls, %d ok, %d failed, %d active quanta", where, r.Calls, r.OK, r.Failed, r.Quanta)
}

// formatRow returns the table cells of m.
func formatRow(m *Metric) []string {
	label := m.Name
	if m.Unit != "" {
		label += " (" + m.Unit + ")"
	}
	a, b := num(m.A), num(m.B)
	if s := m.Saturated; s != nil {
		a, b = a+star(s.A), b+star(s.B)
	}
	rel, ci, sig := "", "", ""
	if m.RelPct != nil {
		rel = fmt.Sprintf("%+.1f%%", *m.RelPct)
	}
	if m.Significant != nil {
		ci = "[" + signed(*m.CILow) + ", " + signed(*m.CIHigh) + "]"
		sig = map[bool]string{true: "yes", false: "no"}[*m.Significant]
	}
	return []string{label, a, b, signed(m.Diff), rel, ci, sig}
}

// star marks a run that did not saturate, as the thesis does.
func star(saturated bool) string {
	if saturated {
		return ""
	}
	return "*"
}

// writeTable writes rows with the first column left-aligned and the others
// right-aligned, two spaces apart, without trailing spaces.
func writeTable(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, cell := range r {
			pad := strings.Repeat(" ", widths[i]-len([]rune(cell)))
			if i == 0 {
				line.WriteString(cell + pad)
			} else {
				line.WriteString("  " + pad + cell)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// num formats a figure with a precision that suits its size.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return human.Number(v, 3) // no exponent, however small
	}
}

// signed formats a difference with its sign.
func signed(v float64) string {
	if v > 0 {
		return "+" + num(v)
	}
	return num(v)
}
