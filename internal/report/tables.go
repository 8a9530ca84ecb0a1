package report

import (
	"fmt"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
)

// statRow is a Min/Med/Aver/Max/Std. Dev. row of the summary table.
type statRow struct {
	Label                    string
	Min, Med, Aver, Max, Dev string
}

// fact is a labelled value of the summary table.
type fact struct {
	Label, Value string
}

// testerRow is one row of the per-tester table.
type testerRow struct {
	Index                                  int
	ID, Host, Start, End, OK, Failed, Util string
	MeanRT, Offset, RTT, Bound, Skew       string
	Dead                                   bool
}

// statRows returns the throughput and response-time rows, thesis style.
func statRows(s *analyze.Summary) []statRow {
	t, rt := s.Throughput, s.ResponseTimeMs
	return []statRow{
		{"Throughput (calls/s)", num(t.Min), num(t.Median), num(t.Mean), num(t.Max), num(t.StdDev)},
		{"Response time (ms)", num(rt.Min), num(rt.Median), num(rt.Mean), num(rt.Max), num(rt.StdDev)},
	}
}

// facts returns the other summary figures and their footnotes.
func facts(s *analyze.Summary) ([]fact, []string) {
	sat, notes := saturation(s.Saturation)
	c := s.Samples
	fs := []fact{
		{"Samples", "total " + itoa(c.Total) + " · ok " + itoa(c.OK) + " · failed " + itoa(c.Failed) +
			" · lost " + itoa(c.Lost) + udpFact(c.UDP)},
		{"Testers", "planned " + itoa(s.Testers.Planned) + " · started " + itoa(s.Testers.Started) +
			" · failed " + itoa(s.Testers.Failed)},
		{"Duration", num(s.DurationS) + " s (quantum " + num(s.QuantumS) + " s)"},
		{"Response time p90 / p99", num(s.ResponseTimeMs.P90) + " / " + num(s.ResponseTimeMs.P99) + " ms"},
		{"Max offered load", num(s.Load.Max) + " calls in flight"},
		{"Saturation", sat},
		{"Peak window", num(s.Peak.StartS) + " – " + num(s.Peak.EndS) + " s, " + itoa(s.Peak.Testers) + " testers"},
		{"Jain fairness (peak window)", num(s.Fairness.Jain)},
		{"Clock", clockFact(s.Clock)},
		{"Errors by class", errorClasses(s.Errors, s.ErrorsTop)},
	}
	if o := s.Open; o != nil {
		fs = append(fs, fact{"Open model", "offered " + num(o.OfferedPS) + " calls/s · achieved " + num(o.AchievedPS) +
			" · late " + itoa(o.Late) + " · dropped " + itoa(o.Dropped) + " · lag p50 / p99 " + num(o.LagMs.Median) +
			" / " + num(o.LagMs.P99) + " ms"})
	}
	if t := s.Transfer; t != nil {
		fs = append(fs, fact{"Transfer", t.Text()})
	}
	if f, ok := phasesFact(s.HTTPPhases); ok {
		fs = append(fs, f)
	}
	if f, ok := refusedFact(s.Refused); ok {
		fs = append(fs, f)
	}
	return fs, notes
}

// saturation is the saturation verdict in words (analyze.Saturation.Text);
// in a summary written before verdicts, the point, with a "*" and a
// footnote when the service never saturated.
func saturation(s analyze.Saturation) (string, []string) {
	if s.Verdict != "" {
		return s.Text(), nil
	}
	v := num(s.Load) + " calls in flight, " + num(s.Throughput) + " calls/s"
	if s.Saturated {
		return v, nil
	}
	return v + " *", []string{"* service never saturated: the highest load reached and the throughput there."}
}

// errorClasses lists the error counts by class name, in name order; or,
// when the summary has them, the classes of top, the largest first, each
// with its message.
func errorClasses(errs map[string]int, top []analyze.ErrorClass) string {
	if len(top) > 0 {
		return errorsTop(top)
	}
	if len(errs) == 0 {
		return "none"
	}
	names := make([]string, 0, len(errs))
	for n := range errs {
		names = append(names, n)
	}
	slices.Sort(names)
	out := ""
	for i, n := range names {
		if i > 0 {
			out += " · "
		}
		out += n + " " + itoa(errs[n])
	}
	return out
}

// testerRows returns the per-tester rows in start order, at most limit of
// them, and how many were left out.
func testerRows(clients []analyze.Client, limit int) ([]testerRow, int) {
	cs := slices.Clone(clients)
	slices.SortStableFunc(cs, func(a, b analyze.Client) int { return a.Index - b.Index })
	omitted := max(0, len(cs)-limit)
	cs = cs[:len(cs)-omitted]
	rows := make([]testerRow, len(cs))
	for i, c := range cs {
		rows[i] = testerRow{
			Index: c.Index, ID: c.ID, Host: c.Host, Start: num(c.StartS), End: num(c.EndS),
			OK: itoa(c.Whole.OK), Failed: itoa(c.Whole.Failed), Util: num(c.Whole.Utilization * 100),
			MeanRT: num(c.Whole.MeanRTms), Offset: num(c.Clock.MaxAbsOffsetMs), RTT: num(c.LatencyMs),
			Bound: num(c.Clock.MaxBoundMs), Skew: startSkew(c.Clock), Dead: c.Failed,
		}
	}
	return rows, omitted
}

// udpFact is what the samples' fact line adds on a UDP run: the datagrams
// behind the samples lost.
func udpFact(u *analyze.UDPCounts) string {
	if u == nil {
		return ""
	}
	bound := ""
	if !u.Exact {
		bound = "at least "
	}
	return fmt.Sprintf(" (UDP: %s%d of %d datagrams lost, %d send errors)", bound, u.Lost, u.Datagrams+u.Lost, u.SendErrors)
}
