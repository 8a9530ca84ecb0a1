package threshold

import (
	"math"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/stats"
)

// figures is what a window of a run holds, from which every windowed
// metric is read: at the end from the analysis' quanta, live from the
// controller's seconds.
type figures struct {
	ok, failed int                  // calls completed in the window
	seconds    float64              // the window's length with a tester active, s
	okTimed    int                  // of ok, those completed in these seconds
	loadArea   float64              // ∫ offered load dt over those seconds, call·s
	rt         *stats.Bucket        // the successful calls' response times (never nil)
	health     analyze.TesterHealth // the testers' highest health figures
}

// value returns metric over f, and false when f holds no data for it
// (no successful call for a response time, no call for the error rate, no
// time for throughput and load).
func (f *figures) value(metric string) (float64, bool) {
	if p, ok := experiment.Percentile(metric); ok {
		return f.rt.Percentile(p), f.rt.N > 0 && f.rt.Hist != nil
	}
	switch metric {
	case experiment.MetricMeanMs:
		return f.rt.Mean(), f.rt.N > 0
	case experiment.MetricMaxMs:
		return f.rt.MaxMs(), f.rt.N > 0
	case experiment.MetricErrorRate:
		n := f.ok + f.failed
		if n == 0 {
			return 0, false
		}
		return 100 * float64(f.failed) / float64(n), true
	case experiment.MetricThroughput:
		if f.seconds <= 0 {
			return 0, false
		}
		return float64(f.okTimed) / f.seconds, true
	case experiment.MetricLoad:
		if f.seconds <= 0 {
			return 0, false
		}
		return f.loadArea / f.seconds, true
	}
	return f.healthValue(metric)
}

// healthValue returns a metric of the testers' health over f, and false
// when no tester reported that figure in it.
func (f *figures) healthValue(metric string) (float64, bool) {
	h := f.health
	var v float64
	switch metric {
	case experiment.MetricTesterCPU:
		v = h.CPUPct
	case experiment.MetricHostBusy:
		v = h.HostBusyPct
	case experiment.MetricHostSteal:
		v = h.HostStealPct
	case experiment.MetricScheduleLag:
		v = h.LagMaxMs
	case experiment.MetricTesterFDs:
		v = float64(h.FDs)
	default:
		return 0, false
	}
	// A tester always has a descriptor open (its connection to the
	// controller): 0 descriptors is a count it could not take.
	return v, h.Known && !math.IsNaN(v) && (metric != experiment.MetricTesterFDs || h.FDs > 0)
}
