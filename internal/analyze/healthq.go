package analyze

import (
	"fmt"
	"math"

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
	late              float64 // Σ lag mean·starts·overlap, ms·calls
	starts            float64 // Σ starts·overlap
	lagMax            float64 // largest lag, ms
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
	if h.Starts > 0 && !math.IsNaN(h.LagMeanMs) {
		t.late += h.LagMeanMs * float64(h.Starts) * ov
		t.starts += float64(h.Starts) * ov
		t.hasLag = true
	}
	if !math.IsNaN(h.LagMaxMs) && h.Starts > 0 {
		t.lagMax = max(t.lagMax, h.LagMaxMs)
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
	case h.T+1 < (start-healthSlackNs)/1e9 || h.T > (end+healthSlackNs)/1e9:
		return fmt.Sprintf("tester %d: second %d outside its lifetime", h.Slot, h.T)
	case outside(h.CPUPct, 0, healthMaxCPUPct) || outside(h.CPUCores, 0, math.MaxFloat64):
		return fmt.Sprintf("tester %d: CPU %v%% of %v cores", h.Slot, h.CPUPct, h.CPUCores)
	case outside(h.HostBusyPct, 0, healthMaxPct) || outside(h.HostStealPct, 0, healthMaxPct):
		return fmt.Sprintf("tester %d: host busy %v%%, steal %v%%", h.Slot, h.HostBusyPct, h.HostStealPct)
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

// healthGrid places the health rows of the testers on the quanta of g.
type healthGrid struct {
	q       []map[int]*testerHealth // per quantum, by tester index
	refused int                     // rows refused as impossible or repeated
	reason  string                  // why the first was
}

// placeHealth places rows on the n quanta of qn ns from origin, refusing
// those of unknown testers, repeated, or impossible (healthRefusal).
func placeHealth(rows []sample.Health, testers []Tester, origin, qn int64, n int) healthGrid {
	hg := healthGrid{q: make([]map[int]*testerHealth, n)}
	life := map[int]Tester{}
	for _, t := range testers {
		life[t.Index] = t
	}
	seen := map[[2]int64]bool{}
	for _, h := range rows {
		t, ok := life[h.Slot]
		why := ""
		switch {
		case !ok:
			why = fmt.Sprintf("tester %d: not a tester of the run", h.Slot)
		case seen[[2]int64{int64(h.Slot), h.T}]:
			why = fmt.Sprintf("tester %d: second %d repeated", h.Slot, h.T)
		default:
			why = healthRefusal(h, t.Start, t.End)
		}
		if why != "" {
			if hg.refused++; hg.reason == "" {
				hg.reason = why
			}
			continue
		}
		seen[[2]int64{int64(h.Slot), h.T}] = true
		hg.place(h, origin, qn)
	}
	return hg
}

// place adds row h to every quantum it overlaps.
func (hg *healthGrid) place(h sample.Health, origin, qn int64) {
	s := h.T*1e9 - origin
	e := s + 1e9
	first, last := max(floorDiv(s, qn), 0), min(floorDiv(e-1, qn), int64(len(hg.q))-1)
	for i := first; i <= last; i++ {
		ov := float64(min(e, (i+1)*qn)-max(s, i*qn)) / 1e9
		if ov <= 0 {
			continue
		}
		if hg.q[i] == nil {
			hg.q[i] = map[int]*testerHealth{}
		}
		th := hg.q[i][h.Slot]
		if th == nil {
			th = &testerHealth{}
			hg.q[i][h.Slot] = th
		}
		th.add(h, ov)
	}
}

// floorDiv is a/b rounded toward −∞ (b > 0).
func floorDiv(a, b int64) int64 {
	d := a / b
	if a%b != 0 && a < 0 {
		d--
	}
	return d
}
