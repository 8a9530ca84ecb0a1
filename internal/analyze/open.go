package analyze

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// LateAfter is how far past its intended start an open-model call may
// start before it counts as late: a call later than this could not start
// on time (every client busy, or the tester stalled). Below it is the
// tester's timer precision (Go's timers wake at a millisecond's grain on a
// busy machine), which the lag distribution (OpenModel.LagMs) shows.
const LateAfter int64 = 10e6 // 10 ms

// OpenModel summarises an open-model run (schedule.rate): the arrival
// rate asked of the service against the one it got, and how late calls
// started. Nil in summary.json for a closed-loop run.
type OpenModel struct {
	Intended int `json:"intended"` // calls due to start (every call with an intended start)
	Started  int `json:"started"`  // calls made (not dropped)
	Late     int `json:"late"`     // calls started more than LateAfter past their intended start
	Dropped  int `json:"dropped"`  // calls never made: no client free within max_lateness
	// OfferedPS and AchievedPS are the calls due and the calls made per
	// second over the span of the intended starts.
	OfferedPS  float64 `json:"offered_per_s"`
	AchievedPS float64 `json:"achieved_per_s"`
	// LagMs is the distribution of start − intended start of the calls
	// made: the tester's scheduling lag plus any wait for a free client.
	LagMs RTStats `json:"lag_ms"`
}

// openAcc accumulates the open model's figures per quantum, by the
// quantum of each call's intended start (offered, late, dropped) and of
// its start (achieved).
type openAcc struct {
	intended, started, late, dropped []int
	lag                              *hdr.Histogram
	lagMom                           stats.Moments
	any                              bool
	first, last                      int64 // earliest and latest intended start
}

// add counts call c of an open-model run; q(t) is the quantum of time t.
func (oa *openAcc) add(c *sample.Call, q func(int64) int) {
	if c.Intended == 0 {
		return
	}
	if !oa.any {
		oa.any, oa.lag, oa.first, oa.last = true, newHist(), c.Intended, c.Intended
	}
	oa.first, oa.last = min(oa.first, c.Intended), max(oa.last, c.Intended)
	qi := oa.grow(q(c.Intended))
	oa.intended[qi]++
	if c.Status == sample.Dropped {
		oa.dropped[qi]++
		return
	}
	lag := max(c.Start-c.Intended, 0)
	if lag > LateAfter {
		oa.late[qi]++
	}
	record(oa.lag, lag)
	oa.lagMom.Add(lag)
	oa.started[oa.grow(q(c.Start))]++
}

// grow makes room for quantum q and returns it.
func (oa *openAcc) grow(q int) int {
	q = max(q, 0)
	if q >= len(oa.intended) {
		n := max(q+1, 2*len(oa.intended), 64)
		for _, s := range []*[]int{&oa.intended, &oa.started, &oa.late, &oa.dropped} {
			*s = append(*s, make([]int, n-len(*s))...)
		}
	}
	return q
}

// fill sets the open-model figures of the quanta and returns the
// summary, or nil for a closed-loop run.
func (oa *openAcc) fill(qs []Quantum, qsec float64) *OpenModel {
	if !oa.any {
		return nil
	}
	oa.grow(len(qs) - 1)
	m := &OpenModel{LagMs: rtStats(oa.lagMom, oa.lag)}
	for q := range qs {
		o := &OpenQuantum{OfferedPS: float64(oa.intended[q]) / qsec, AchievedPS: float64(oa.started[q]) / qsec,
			Late: oa.late[q], Dropped: oa.dropped[q]}
		qs[q].Open = o
		m.Intended += oa.intended[q]
		m.Started += oa.started[q]
		m.Late += o.Late
		m.Dropped += o.Dropped
	}
	if m.Intended > 1 && oa.last > oa.first {
		// n starts spread over [first, last] are n−1 gaps: the span of n
		// arrivals is n/(n−1) of it.
		span := float64(oa.last-oa.first) / 1e9 * float64(m.Intended) / float64(m.Intended-1)
		m.OfferedPS, m.AchievedPS = float64(m.Intended)/span, float64(m.Started)/span
	}
	return m
}

// OpenQuantum is one quantum's open-model figures.
type OpenQuantum struct {
	OfferedPS  float64 // calls due to start in the quantum, per second
	AchievedPS float64 // calls started in the quantum, per second
	Late       int     // calls due in the quantum that started late
	Dropped    int     // calls due in the quantum that were dropped
}

// merge adds the figures of b to oa.
func (oa *openAcc) merge(b *openAcc) {
	if !b.any {
		return
	}
	if !oa.any {
		oa.any, oa.lag, oa.first, oa.last = true, newHist(), b.first, b.last
	}
	oa.grow(len(b.intended) - 1)
	for q := range b.intended {
		oa.intended[q] += b.intended[q]
		oa.started[q] += b.started[q]
		oa.late[q] += b.late[q]
		oa.dropped[q] += b.dropped[q]
	}
	oa.first, oa.last = min(oa.first, b.first), max(oa.last, b.last)
	oa.lag.Merge(b.lag)
	oa.lagMom.Merge(b.lagMom)
}
