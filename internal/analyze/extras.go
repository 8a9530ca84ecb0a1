package analyze

import (
	"math"
	"slices"

	"github.com/diperf/diperf/internal/sample"
)

// MaxExtraKeys bounds the extras' keys the analysis follows: the first
// this many it meets. Values of later keys are left out and counted in
// Summary.ExtrasIgnored. It is rundir.MaxExtraColumns, the most extras
// columns samples.parquet holds, so that a run analysed from its file
// follows every key the file has.
const MaxExtraKeys = 64

// ExtraStats summarises the values clients reported under one key over
// the run (summary.json "extras"), of every call that reported it,
// whatever its status.
type ExtraStats struct {
	Calls int     `json:"calls"` // calls that reported the key
	Sum   float64 `json:"sum"`
	Mean  float64 `json:"mean"`  // Sum / Calls
	PerS  float64 `json:"per_s"` // Sum per second of the run's duration (e.g. MB/s)
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
}

// ExtraQuantum is one key's figures in one quantum: the values of the
// calls completed in it that reported the key.
type ExtraQuantum struct {
	Calls int     // calls that reported the key
	Sum   float64 // their values' sum
	PerS  float64 // Sum per second of the quantum (e.g. MB/s)
	Mean  float64 // Sum / Calls; 0 when no call reported it
}

// extraSeries accumulates one key.
type extraSeries struct {
	key       string
	sumSeries // per quantum: calls that reported the key, their values' sum
	calls     int
	total     float64
	min, max  float64
}

// extrasAcc accumulates the extras, by key, per quantum and over the run.
type extrasAcc struct {
	idx     map[string]int // key -> series
	series  []*extraSeries
	ignored int // values of keys past MaxExtraKeys, or not finite
}

// add counts the extras of call c, completed in quantum q.
func (ea *extrasAcc) add(q int, c *sample.Call) {
	for _, e := range c.Extras {
		s := ea.get(e.Key)
		if s == nil || math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
			ea.ignored++
			continue
		}
		s.add(q, e.Value)
		s.note(1, e.Value, e.Value, e.Value)
	}
}

// get returns the series of key, made at its first value; nil past
// MaxExtraKeys keys.
func (ea *extrasAcc) get(key string) *extraSeries {
	if i, ok := ea.idx[key]; ok {
		return ea.series[i]
	}
	if len(ea.series) >= MaxExtraKeys {
		return nil
	}
	if ea.idx == nil {
		ea.idx = map[string]int{}
	}
	ea.idx[key] = len(ea.series)
	s := &extraSeries{key: key}
	ea.series = append(ea.series, s)
	return s
}

// note adds calls values of sum sum, least lo and greatest hi to the
// run's figures.
func (s *extraSeries) note(calls int, sum, lo, hi float64) {
	if s.calls == 0 {
		s.min, s.max = lo, hi
	}
	s.min, s.max = min(s.min, lo), max(s.max, hi)
	s.calls += calls
	s.total += sum
}

// merge adds the extras of b to ea; keys b met that ea has no room for
// are counted ignored.
func (ea *extrasAcc) merge(b *extrasAcc) {
	ea.ignored += b.ignored
	for _, bs := range b.series {
		s := ea.get(bs.key)
		if s == nil {
			ea.ignored += bs.calls
			continue
		}
		s.sumSeries.merge(&bs.sumSeries)
		if bs.calls > 0 {
			s.note(bs.calls, bs.total, bs.min, bs.max)
		}
	}
}

// fill sets the extras of the quanta (every key of the run in each) and
// returns the run's figures by key, or nil when no call reported any;
// qsec is the quantum and durS the run's duration, seconds.
func (ea *extrasAcc) fill(qs []Quantum, qsec, durS float64) map[string]ExtraStats {
	if len(ea.series) == 0 {
		return nil
	}
	for q := range qs {
		qs[q].Extras = make(map[string]ExtraQuantum, len(ea.series))
	}
	out := make(map[string]ExtraStats, len(ea.series))
	for _, s := range ea.series {
		s.grow(len(qs) - 1)
		for q := range qs {
			x := ExtraQuantum{Calls: s.n[q], Sum: s.sum[q], PerS: s.sum[q] / qsec}
			if x.Calls > 0 {
				x.Mean = x.Sum / float64(x.Calls)
			}
			qs[q].Extras[s.key] = x
		}
		st := ExtraStats{Calls: s.calls, Sum: s.total, Min: s.min, Max: s.max}
		if s.calls > 0 {
			st.Mean = s.total / float64(s.calls)
		}
		if durS > 0 {
			st.PerS = s.total / durS
		}
		out[s.key] = st
	}
	return out
}

// ExtraKeys returns the extras' keys of quanta qs, sorted (none for a run
// whose clients reported no extras).
func ExtraKeys(qs []Quantum) []string {
	if len(qs) == 0 {
		return nil
	}
	keys := make([]string, 0, len(qs[0].Extras))
	for k := range qs[0].Extras {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
