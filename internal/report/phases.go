package report

import (
	"strings"

	"github.com/diperf/diperf/internal/analyze"
)

// colFirstByte is the colour of the time to first byte in graph (a).
const colFirstByte = "#8c6d31"

// phasesFact is the summary table's line of the HTTP phases: mean, p50
// and p99 of each phase some call measured, with how many did; ok is
// false when no call measured any.
func phasesFact(p *analyze.HTTPPhases) (fact, bool) {
	if p == nil {
		return fact{}, false
	}
	var parts []string
	for _, ph := range []struct {
		name string
		st   analyze.PhaseStats
	}{{"DNS", p.DNS}, {"connect", p.Connect}, {"TLS", p.TLS}, {"first byte", p.FirstByte}} {
		if ph.st.N > 0 {
			parts = append(parts, ph.name+" "+num(ph.st.Mean)+" / "+num(ph.st.P50)+" / "+num(ph.st.P99)+
				" ("+itoa(ph.st.N)+" calls)")
		}
	}
	if len(parts) == 0 {
		return fact{}, false
	}
	return fact{"HTTP phases, mean / p50 / p99 (ms)", strings.Join(parts, " · ")}, true
}

// firstByte returns, per quantum, the mean time to first byte of the calls
// that measured it (NaN where none did), or nil when no quantum has phase
// figures.
func firstByte(r *analyze.Result) []float64 {
	var y []float64
	for i, q := range r.Quanta {
		if q.Phases == nil {
			continue
		}
		if y == nil {
			y = make([]float64, len(r.Quanta))
			for k := range y {
				y[k] = nan
			}
		}
		if q.Phases.FirstByteN > 0 {
			y[i] = q.Phases.FirstByteMs
		}
	}
	return y
}

// firstByteNote is the sentence graph (a)'s caption ends with when it
// draws the time to first byte, empty else.
func firstByteNote(r *analyze.Result) string {
	if firstByte(r) == nil {
		return ""
	}
	return " Time to first byte (left axis, brown): per quantum, the mean over the calls completed in it that " +
		"measured it (the built-in HTTP client), from the request's start to the first byte of the response; " +
		"the rest of a response time is reading the response."
}
