package placement

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/diperf/diperf/internal/experiment"
)

// rank orders the candidates that met the rules by r.Prefer: near,
// highest bandwidth first, then lowest latency; far, highest latency
// first, then lowest bandwidth; diverse, r.Testers hosts spread evenly
// over the range of latencies, lowest first, then the rest by latency.
// A figure not known ranks after every known one; ties go by host name.
// Without the mesh (r.Network false) the highest idle CPU comes first.
func (r Rules) rank(cs []Candidate) []Candidate {
	out := slices.Clone(cs)
	byName := func(a, b Candidate) int { return strings.Compare(a.Host, b.Host) }
	switch {
	case !r.Network:
		slices.SortFunc(out, func(a, b Candidate) int {
			return cmp.Or(desc(cpuOf(a), cpuOf(b)), byName(a, b))
		})
	case r.Prefer == experiment.PreferFar:
		slices.SortFunc(out, func(a, b Candidate) int {
			return cmp.Or(desc(a.latency(), b.latency()), asc(a.bandwidth(), b.bandwidth()), byName(a, b))
		})
	case r.Prefer == experiment.PreferDiverse:
		slices.SortFunc(out, func(a, b Candidate) int {
			return cmp.Or(asc(a.latency(), b.latency()), desc(a.bandwidth(), b.bandwidth()), byName(a, b))
		})
		out = spaced(out, r.Testers)
	default:
		slices.SortFunc(out, func(a, b Candidate) int {
			return cmp.Or(desc(a.bandwidth(), b.bandwidth()), asc(a.latency(), b.latency()), byName(a, b))
		})
	}
	return out
}

// cpuOf is c's idle CPU, 0 when not known.
func cpuOf(c Candidate) float64 {
	if c.cpuKnown() {
		return c.IdleCPU
	}
	return 0
}

// asc and desc compare figures, a figure not known (≤ 0) after every
// known one.
func asc(a, b float64) int  { return byFigure(a, b, 1) }
func desc(a, b float64) int { return byFigure(a, b, -1) }

// byFigure compares known figures in the order of sign (1: ascending,
// -1: descending), those not known last.
func byFigure(a, b float64, sign int) int {
	switch {
	case a <= 0 && b <= 0:
		return 0
	case a <= 0:
		return 1
	case b <= 0:
		return -1
	}
	return sign * cmp.Compare(a, b)
}

// spaced puts first n of sorted spread evenly over its range (its first
// and last among them), then the rest in their order.
func spaced(sorted []Candidate, n int) []Candidate {
	m := len(sorted)
	if n <= 1 || m <= n {
		return sorted
	}
	taken := make([]bool, m)
	var out []Candidate
	for k := range n {
		i := int(math.Round(float64(k) * float64(m-1) / float64(n-1)))
		if !taken[i] {
			taken[i] = true
			out = append(out, sorted[i])
		}
	}
	for i, c := range sorted {
		if !taken[i] {
			out = append(out, c)
		}
	}
	return out
}
