package analyze

import (
	"math"

	"github.com/diperf/diperf/internal/sample"
)

// TesterHealth is the testers' health over some quanta of a run: the
// highest figure of any tester in any second of health.csv that overlaps
// them (sample.Health says what each is). Known is false when no tester
// reported its health there; a figure no tester measured is NaN.
type TesterHealth struct {
	Known        bool
	CPUPct       float64 // % of the CPU the tester may use
	HostBusyPct  float64 // % busy of the host CPUs it may run on
	HostStealPct float64 // % stolen of them
	LagMaxMs     float64 // largest schedule lag, ms (NaN: no call started)
	FDs          int     // most open descriptors (0: none counted)
}

// unknownHealth is a known TesterHealth with every figure unknown yet.
func unknownHealth() TesterHealth {
	nan := math.NaN()
	return TesterHealth{Known: true, CPUPct: nan, HostBusyPct: nan, HostStealPct: nan, LagMaxMs: nan}
}

// addRow takes row h's figures into th's highest.
func (th *TesterHealth) addRow(h sample.Health) {
	th.CPUPct = MaxKnown(th.CPUPct, h.CPUPct)
	th.HostBusyPct = MaxKnown(th.HostBusyPct, h.HostBusyPct)
	th.HostStealPct = MaxKnown(th.HostStealPct, h.HostStealPct)
	if h.Starts > 0 {
		th.LagMaxMs = MaxKnown(th.LagMaxMs, h.LagMaxMs)
	}
	th.FDs = max(th.FDs, h.FDs)
}

// Merge takes o's figures into th's highest.
func (th *TesterHealth) Merge(o TesterHealth) {
	if !o.Known {
		return
	}
	if !th.Known {
		*th = o
		return
	}
	th.CPUPct = MaxKnown(th.CPUPct, o.CPUPct)
	th.HostBusyPct = MaxKnown(th.HostBusyPct, o.HostBusyPct)
	th.HostStealPct = MaxKnown(th.HostStealPct, o.HostStealPct)
	th.LagMaxMs = MaxKnown(th.LagMaxMs, o.LagMaxMs)
	th.FDs = max(th.FDs, o.FDs)
}

// MaxKnown is the larger of a and b, NaN being unknown (NaN when both are).
func MaxKnown(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return max(a, b)
}

// TesterHealth returns the testers' health over quanta [from, to) of r
// (Known false: no tester reported any there, or the run has no
// health.csv).
func (r *Result) TesterHealth(from, to int) TesterHealth {
	var th TesterHealth
	for i := max(from, 0); i < min(to, len(r.health)); i++ {
		th.Merge(r.health[i])
	}
	return th
}
