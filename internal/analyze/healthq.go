package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/diperf/diperf/internal/sample"
)

// Health rows on the quanta.
//
// A row of health.csv covers the global second [T, T+1); a quantum covers
// [origin + i·q, origin + (i+1)·q). A row counts in every quantum it
// overlaps, weighted by the overlap: with q = 0.5 s a row lies in two or
// three quanta (the origin need not fall on a whole second), with q = 2 s
// a quantum holds two or three rows of each tester. A tester's CPU and
// host figures over a quantum are the overlap-weighted means of its rows
// (a NaN figure is left out), its late time the weighted sum of its rows'
// lag × starts, its largest lag and descriptors the largest of its rows.

// Bounds of a health row beyond which no tester can have measured it.
const (
	healthMaxCPUPct = 150  // % of the CPU a tester may use: 100 plus the jitter of a second's edges
	healthMaxStarts = 1e6  // calls started by one tester in one second
	healthSlackNs   = 2e9  // a row may lie this far outside its tester's lifetime
	healthMaxPct    = 100  // host busy and steal, % of the host's CPUs
	msPerS          = 1000 // ms per second
)

// testerHealth is one tester's health over one quantum.
type testerHealth struct {
	w                 float64 // Σ overlap, s
	cpu, busy, steal  float64 // Σ figure·overlap (NaN figures left out)
	cpuW, busyW, stW  float64 // Σ overlap of the rows with that figure
	thr, thrW         float64 // the same of the throttled share
	late              float64 // Σ lag mean·starts·overlap, ms·calls
	starts            float64 // Σ starts·overlap
	fds, fdLimit      int     // most descriptors, and the limit of that row
	hasLag, hasFDInfo bool
	peak              TesterHealth // the highest figures of its rows
}

// add counts row h, which overlaps the quantum by ov seconds.
func (t *testerHealth) add(h sample.Health, ov float64) {
	t.w += ov
	addWeighted(&t.cpu, &t.cpuW, h.CPUPct, ov)
	addWeighted(&t.busy, &t.busyW, h.HostBusyPct, ov)
	addWeighted(&t.steal, &t.stW, h.HostStealPct, ov)
	addWeighted(&t.thr, &t.thrW, h.ThrottledPct, ov)
	if h.Starts > 0 && !math.IsNaN(h.LagMeanMs) {
		t.late += h.LagMeanMs * float64(h.Starts) * ov
		t.starts += float64(h.Starts) * ov
		t.hasLag = true
	}
	if h.FDs > t.fds || !t.hasFDInfo {
		t.fds, t.fdLimit, t.hasFDInfo = h.FDs, h.FDLimit, true
	}
	if !t.peak.Known {
		t.peak = unknownHealth()
	}
	t.peak.addRow(h)
}

// addWeighted adds v·w to *sum and w to *ws unless v is NaN.
func addWeighted(sum, ws *float64, v, w float64) {
	if !math.IsNaN(v) {
		*sum += v * w
		*ws += w
	}
}

// mean returns sum/w, NaN when w is 0.
func mean(sum, w float64) float64 {
	if w <= 0 {
		return math.NaN()
	}
	return sum / w
}

// healthRefusal says why row h of a tester living over [start, end) (global
// ns) is impossible; "" when it is not.
func healthRefusal(h sample.Health, start, end int64) string {
	switch { // in seconds: T may be anything, T·1e9 may overflow
	case h.T < 0 || h.T > math.MaxInt64/int64(1e9)-2 || h.T+1 < (start-healthSlackNs)/1e9 || h.T > (end+healthSlackNs)/1e9:
		return fmt.Sprintf("tester %d: second %d outside its lifetime", h.Slot, h.T)
	case outside(h.CPUPct, 0, healthMaxCPUPct) || outside(h.CPUCores, 0, math.MaxFloat64):
		return fmt.Sprintf("tester %d: CPU %v%% of %v cores", h.Slot, h.CPUPct, h.CPUCores)
	case outside(h.HostBusyPct, 0, healthMaxPct) || outside(h.HostStealPct, 0, healthMaxPct) || outside(h.ThrottledPct, 0, healthMaxPct):
		return fmt.Sprintf("tester %d: host busy %v%%, steal %v%%, throttled %v%%", h.Slot, h.HostBusyPct, h.HostStealPct, h.ThrottledPct)
	case outside(h.LagMeanMs, 0, float64(end-start)/1e6+msPerS) || outside(h.LagMaxMs, 0, float64(end-start)/1e6+msPerS) ||
		h.LagMaxMs < h.LagMeanMs || h.Starts < 0 || h.Starts > healthMaxStarts:
		return fmt.Sprintf("tester %d: lag %v ms (max %v ms) over %d starts", h.Slot, h.LagMeanMs, h.LagMaxMs, h.Starts)
	case h.FDs < 0 || h.FDLimit < 0 || h.FDLimit > 0 && h.FDs > h.FDLimit:
		return fmt.Sprintf("tester %d: %d descriptors of %d", h.Slot, h.FDs, h.FDLimit)
	}
	return ""
}

// outside reports whether v (NaN: unknown, never outside) lies outside
// [lo, hi] or is infinite.
func outside(v, lo, hi float64) bool {
	return !math.IsNaN(v) && (v < lo || v > hi || math.IsInf(v, 0))
}

// healthRows are the health rows of a run the analysis accepted, in
// time order, with what it refused.
type healthRows struct {
	rows    []sample.Health // by second, then tester
	refused int             // rows refused as impossible or repeated
	reason  string          // why the first was
}

// acceptHealth returns the rows no tester of testers can have measured
// (an unknown tester, healthRefusal, a second repeated) refused and
// counted, the others sorted by second and tester.
func acceptHealth(rows []sample.Health, testers []Tester) healthRows {
	var hr healthRows
	refuse := func(why string) {
		if hr.refused++; hr.reason == "" {
			hr.reason = why
		}
	}
	life := map[int]Tester{}
	for _, t := range testers {
		life[t.Index] = t
	}
	keys := make([]rowKey, 0, len(rows))
	for i, h := range rows {
		t, ok := life[h.Slot]
		switch {
		case !ok:
			refuse(fmt.Sprintf("tester %d: not a tester of the run", h.Slot))
		case healthRefusal(h, t.Start, t.End) != "":
			refuse(healthRefusal(h, t.Start, t.End))
		default:
			keys = append(keys, rowKey{h.T, h.Slot, i})
		}
	}
	hr.rows = inTimeOrder(rows, keys, refuse)
	return hr
}

// rowKey places row i of health.csv: its second, then its tester.
type rowKey struct {
	t       int64
	slot, i int
}

// inTimeOrder returns the rows of keys sorted by second and tester, a
// row repeating one before it in the file dropped and said to refuse.
func inTimeOrder(rows []sample.Health, keys []rowKey, refuse func(why string)) []sample.Health {
	slices.SortFunc(keys, func(a, b rowKey) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.slot, b.slot), cmp.Compare(a.i, b.i))
	})
	out := make([]sample.Health, 0, len(keys))
	for k, key := range keys {
		if k > 0 && key.t == keys[k-1].t && key.slot == keys[k-1].slot {
			refuse(fmt.Sprintf("tester %d: second %d repeated", key.slot, key.t))
			continue
		}
		out = append(out, rows[key.i])
	}
	return out
}

// eachQuantum calls fn with every one of the n quanta of qn ns from
// origin that some row of hr overlaps, and its testers' health there (by
// tester index; fn must not keep the map).
func (hr *healthRows) eachQuantum(origin, qn int64, n int, fn func(i int, testers map[int]*testerHealth)) {
	m, pool := map[int]*testerHealth{}, map[int]*testerHealth{} // pool: one per tester, reused
	lo, hi := 0, 0
	for i := range int64(n) {
		qs, qe := origin+i*qn, origin+(i+1)*qn
		for hi < len(hr.rows) && hr.rows[hi].T*1e9 < qe {
			hi++ // rows that start before the quantum ends
		}
		for lo < hi && hr.rows[lo].T*1e9+1e9 <= qs {
			lo++ // rows that end before it starts
		}
		if lo == hi {
			continue
		}
		clear(m)
		for _, h := range hr.rows[lo:hi] {
			th := m[h.Slot]
			if th == nil {
				if th = pool[h.Slot]; th == nil {
					th = &testerHealth{}
					pool[h.Slot] = th
				}
				*th = testerHealth{}
				m[h.Slot] = th
			}
			th.add(h, float64(min(qe, h.T*1e9+1e9)-max(qs, h.T*1e9))/1e9)
		}
		fn(int(i), m)
	}
}
