package analyze

import (
	"math"

	"github.com/diperf/diperf/internal/sample"
)

// ThroughputUnit is the unit of the summary's throughput row.
const ThroughputUnit = "calls/s"

// summarize builds the summary table except the peak window, fairness
// and the saturation verdict (which needs the open model's figures).
// Throughput statistics and the saturation fit use the quanta in which at
// least one tester was active (every quantum if there are no testers).
func (a *Accumulator) summarize(g grid, quanta []Quantum, rt RTStats) Summary {
	s := Summary{
		Testers:        TesterCounts{Planned: a.cfg.Planned, Started: len(a.testers)},
		QuantumS:       float64(g.qn) / 1e9,
		ResponseTimeMs: summaryRT(rt),
		Errors:         map[string]int{},
		DurationS:      g.seconds(g.end),
	}
	s.Samples = countSamples(a.byClass, a.calls, s.Errors)
	s.Samples.Lost = a.cfg.Lost
	s.Samples.LostInTransport = a.cfg.Lost
	s.Samples.UDP = a.cfg.UDP
	for _, t := range a.testers {
		if t.Failed {
			s.Testers.Failed++
		}
		s.Clock.MaxAbsOffsetMs = max(s.Clock.MaxAbsOffsetMs, math.Abs(t.OffsetMs))
		s.Clock.MaxErrorBoundMs = max(s.Clock.MaxErrorBoundMs, t.BoundMs)
		if t.Synchronized {
			s.Clock.MaxStartSkewMs = max(s.Clock.MaxStartSkewMs, math.Abs(t.StartSkewMs))
		}
		s.Clock.addTrust(&t)
	}
	s.Clock.sortSuspects()
	var thr []float64
	for _, q := range quanta {
		s.Load.Max = max(s.Load.Max, q.Load)
		if q.Active > 0 || len(a.testers) == 0 {
			thr = append(thr, q.Throughput)
		}
	}
	s.Throughput = floatStats(thr, ThroughputUnit)
	return s
}

// countSamples counts the calls by outcome from their counts by class and
// the non-OK ones by class into errs. Failed excludes cancelled calls,
// which Cancelled counts.
func countSamples(byClass []int, total int, errs map[string]int) SampleCounts {
	sc := SampleCounts{Total: total, OK: byClass[sample.OK]}
	for k, n := range byClass {
		st := sample.Status(k)
		if st == sample.OK || n == 0 {
			continue
		}
		errs[st.String()] = n
		if st != sample.Cancelled {
			sc.Failed += n
		} else {
			sc.Cancelled = n
		}
	}
	return sc
}

// AddEarlyStop counts tester index (id) as stopped before its duration
// without being told to, for reason, and lists it while fewer than
// MaxEarlyStops are.
func (s *Summary) AddEarlyStop(index int, id, reason string) {
	s.Testers.StoppedEarly++
	if len(s.EarlyStops) < MaxEarlyStops {
		s.EarlyStops = append(s.EarlyStops, EarlyStop{Index: index, ID: id, Reason: reason})
	}
}
