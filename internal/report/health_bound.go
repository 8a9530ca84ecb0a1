package report

import (
	"encoding/csv"
	"os"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
)

// sortByTime orders v's seconds by time.
func (v *healthView) sortByTime() {
	idx := make([]int, len(v.t))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return v.t[idx[a]] < v.t[idx[b]] })
	pick := func(c []float64) []float64 {
		out := make([]float64, len(c))
		for i, k := range idx {
			out[i] = c[k]
		}
		return out
	}
	v.t, v.cpu, v.host, v.lag = pick(v.t), pick(v.cpu), pick(v.host), pick(v.lag)
}

// boundQuanta returns the quanta the testers limited: those r marks
// (Quantum.TesterBound), else those quanta.csv marks in its tester_bound
// column, read by header (none when it has no such column).
func boundQuanta(dir string, r *analyze.Result) []boundQuantum {
	var out []boundQuantum
	for _, q := range r.Quanta {
		if q.TesterBound != "" {
			out = append(out, boundQuantum{q.T, q.TesterBound})
		}
	}
	if len(out) == 0 {
		out = csvBound(dir, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].t < out[j].t })
	return out
}

// quantumAt returns the start of r's quantum that starts at t, as
// quanta.csv writes it (to 0.1 ms).
func quantumAt(r *analyze.Result, t float64) (float64, bool) {
	i := sort.Search(len(r.Quanta), func(i int) bool { return r.Quanta[i].T >= t-1e-3 })
	if i < len(r.Quanta) && r.Quanta[i].T <= t+1e-3 {
		return r.Quanta[i].T, true
	}
	return 0, false
}

// csvBound reads the tester_bound column of dir's quanta.csv, keeping
// the marks of the quanta that r has (by their start, t_s).
func csvBound(dir string, r *analyze.Result) []boundQuantum {
	f, err := os.Open(rundir.Path(dir, rundir.Quanta))
	if err != nil {
		return nil
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		return nil
	}
	ti, bi := -1, -1
	for i, h := range recs[0] {
		switch h {
		case "t_s":
			ti = i
		case "tester_bound":
			bi = i
		}
	}
	if ti < 0 || bi < 0 {
		return nil
	}
	var out []boundQuantum
	for _, rec := range recs[1:] {
		if bi >= len(rec) || ti >= len(rec) || rec[bi] == "" {
			continue
		}
		if t, err := strconv.ParseFloat(rec[ti], 64); err == nil {
			if q, ok := quantumAt(r, t); ok {
				out = append(out, boundQuantum{q, clip(rec[bi], maxReason)})
			}
		}
	}
	return out
}

// maxReason bounds the text of a reason read from quanta.csv.
const maxReason = 80

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
