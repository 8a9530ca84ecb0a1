package live

import (
	"math"

	"github.com/diperf/diperf/internal/jsonnum"
	"github.com/diperf/diperf/internal/sample"
)

// Health records one tester's self-health for one second (sample.Health,
// its T global Unix seconds): it folds it into that second's figures (the
// highest of the testers: CPU, host busy, schedule lag, descriptors) and,
// when it is the tester's latest, into the tester's dashboard row. A
// report of an unknown slot (no tester planned or seen there), or of a
// second outside the run's timeline (before its first second, or past
// now by more than maxAhead), is ignored: the rows never grow past the
// run's seconds and testers. A figure that is NaN, infinite or negative
// is left out, as unknown.
func (r *Run) Health(h sample.Health) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if h.Slot < 0 || h.Slot >= max(r.planned, len(r.testers)) {
		return
	}
	if h.T < r.t0 || h.T > r.now().Add(maxAhead).Unix() {
		return
	}
	r.row(h.T).addHealth(&h)
	t := r.tester(h.Slot)
	if t.Health == nil || h.T >= t.Health.T {
		t.Health = testerHealth(&h)
	}
}

// known reports whether v is a figure that can be shown: finite, not
// negative.
func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

// addHealth folds one tester's report into the second's figures.
func (s *Second) addHealth(h *sample.Health) {
	s.HealthN++
	if known(h.CPUPct) {
		s.TesterCPUPct = max(s.TesterCPUPct, h.CPUPct)
	}
	if known(h.HostBusyPct) {
		s.HostBusyPct = max(s.HostBusyPct, h.HostBusyPct)
		s.HostN++
	}
	if known(h.LagMaxMs) && h.Starts > 0 {
		s.LagMaxMs = max(s.LagMaxMs, h.LagMaxMs)
	}
	s.FDs = max(s.FDs, h.FDs)
}

// testerHealth is a tester's dashboard figures from its report h; a new
// value each time, so that copies of a row never share one that changes.
func testerHealth(h *sample.Health) *TesterHealth {
	th := &TesterHealth{T: h.T, CPUPct: positive(h.CPUPct), HostBusyPct: positive(h.HostBusyPct),
		Starts: max(h.Starts, 0), FDs: max(h.FDs, 0), FDLimit: max(h.FDLimit, 0)}
	if h.Starts > 0 {
		th.LagMaxMs = positive(h.LagMaxMs)
	}
	return th
}

// positive is jsonnum.Ptr of v when v is known, else nil.
func positive(v float64) *float64 {
	if !known(v) {
		return nil
	}
	return jsonnum.Ptr(v)
}
