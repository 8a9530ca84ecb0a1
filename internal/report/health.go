package report

import (
	"errors"
	"io/fs"
	"math"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// HealthGraphID is the element id of the testers' health panel, drawn
// directly under graph (a) when the run directory holds health.csv; it is
// also written beside the report as an .svg file.
const HealthGraphID = idHealth

// idHealth is the element id of the health panel.
const idHealth = "graph-a2-tester-health"

// Physical bounds of a health figure read from health.csv: a share of a
// CPU cannot pass 100% by more than the measurement's jitter, and no call
// can start later than the run's length plus a minute.
const (
	maxHealthPct = 150
	lagSlackMs   = 60e3
)

// healthView is the testers' self-health per second of the run: the
// highest of the testers each second, on the time axis of graph (a), and
// the quanta the testers limited.
type healthView struct {
	t, cpu, host, lag []float64 // per second: its start (s since origin), the highest of the testers
	bound             []boundQuantum
	testers           int // distinct testers that reported
	refused           int // rows outside the run or what is possible, left out
	note              string
}

// boundQuantum is a quantum the testers limited, and why.
type boundQuantum struct {
	t      float64 // its start, s since origin
	reason string
}

// noHealth is the health of a run that recorded none: a note saying so.
func noHealth() *healthView {
	return &healthView{note: "Tester health not recorded: the run directory has no " + rundir.Health +
		", so whether the testers limited the load is unknown."}
}

// readHealth reads dir's health.csv for r: nil with a note saying so when
// the run recorded none or it cannot be read.
func readHealth(dir string, r *analyze.Result) *healthView {
	rows, err := rundir.ReadHealth(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return noHealth()
	case err != nil:
		return &healthView{note: "Tester health not drawn: " + err.Error() + "."}
	}
	v := healthOf(rows, r)
	v.bound = boundQuanta(dir, r)
	return v
}

// healthOf folds the rows into the highest of the testers per second,
// leaving out the rows outside the run's quanta (a second's margin each
// side) or whose figures are beyond what is possible.
func healthOf(rows []sample.Health, r *analyze.Result) *healthView {
	origin := float64(r.Origin) / 1e9
	end := 0.0
	if n := len(r.Quanta); n > 0 {
		end = r.Quanta[n-1].T + r.Summary.QuantumS
	}
	bySec := map[int64]int{}
	slots := map[int]bool{}
	v := &healthView{}
	for i := range rows {
		h := &rows[i]
		x := float64(h.T) - origin
		if !(x >= -1 && x <= end+1) || !possible(h, end) {
			v.refused++
			continue
		}
		k, ok := bySec[h.T]
		if !ok {
			k = len(v.t)
			bySec[h.T] = k
			v.t, v.cpu, v.host, v.lag = append(v.t, x), append(v.cpu, nan), append(v.host, nan), append(v.lag, nan)
		}
		slots[h.Slot] = true
		v.cpu[k], v.host[k] = analyze.MaxKnown(v.cpu[k], h.CPUPct), analyze.MaxKnown(v.host[k], h.HostBusyPct)
		if h.Starts > 0 {
			v.lag[k] = analyze.MaxKnown(v.lag[k], h.LagMaxMs)
		}
	}
	v.testers = len(slots)
	v.sortByTime()
	return v
}

// possible reports whether a row's figures are within what is physically
// possible in a run of end seconds (an unknown figure, NaN, is possible).
func possible(h *sample.Health, end float64) bool {
	in := func(v, hi float64) bool { return math.IsNaN(v) || (v >= 0 && v <= hi) }
	return h.Slot >= 0 && in(h.CPUPct, maxHealthPct) && in(h.HostBusyPct, maxHealthPct) &&
		in(h.LagMaxMs, end*1e3+lagSlackMs) && h.Starts >= 0 && h.FDs >= 0
}
