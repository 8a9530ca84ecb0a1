package compare

import (
	"math"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/stats"
)

// Units of the metrics.
const (
	unitMs     = "ms"
	unitPct    = "%"
	unitLoad   = "calls in flight"
	unitJain   = "index"
	unitCallsS = analyze.ThroughputUnit
)

// Compare compares run b with run a. Neither is modified.
func Compare(a, b *Data, o Options) *Comparison {
	o = o.withDefaults()
	c := &Comparison{A: runOf(a), B: runOf(b), Resamples: o.Resamples, Seed: o.Seed}
	c.Metrics = append(c.Metrics, matchedMetric(a, b, o))
	c.Metrics = append(c.Metrics, throughputMetrics(a, b, o)...)
	c.Metrics = append(c.Metrics, rtMetrics(a, b, o)...)
	c.Metrics = append(c.Metrics, errorRateMetric(a, b, o))
	c.Metrics = append(c.Metrics, summaryMetrics(&a.Summary, &b.Summary)...)
	c.Verdicts = Verdicts{
		ResponseTime: rtVerdict(c.Metric(RTMedian)),
		Throughput:   throughputVerdict(c.Metric(ThroughputMatched)),
	}
	return c
}

// runOf identifies d's side of the comparison.
func runOf(d *Data) Run {
	s := d.Summary.Samples
	r := Run{Name: d.Name, Dir: d.Dir, Calls: s.Total, OK: s.OK, Failed: s.Failed, Quanta: len(d.Throughput)}
	if d.Summary.Saturation.Verdict != "" { // a summary written before verdicts has none to tell
		r.Saturation = d.Summary.Saturation.Text()
	}
	return r
}

// newMetric returns the metric with values a and b and their difference.
func newMetric(name, unit string, a, b float64) Metric {
	m := Metric{Name: name, Unit: unit, A: a, B: b, Diff: b - a}
	if a != 0 {
		rel := 100 * m.Diff / a
		m.RelPct = &rel
	}
	return m
}

// setCI records the 95% interval of the difference and whether it
// excludes zero.
func (m *Metric) setCI(ci stats.Interval) {
	lo, hi := ci.Low, ci.High
	sig := lo > 0 || hi < 0
	m.CILow, m.CIHigh, m.Significant = &lo, &hi, &sig
	if m.A != 0 {
		mdc := 100 * (hi - lo) / 2 / math.Abs(m.A)
		m.MDCPct = &mdc
	}
}

// throughputMetrics compares the per-quantum throughputs: median, with an
// interval from resampling quanta, and mean.
func throughputMetrics(a, b *Data, o Options) []Metric {
	med := newMetric(ThroughputMedian, unitCallsS, stats.Median(a.Throughput), stats.Median(b.Throughput))
	if ci, ok := medianDiffCI(a.Throughput, b.Throughput, o, streamThroughput); ok {
		med.setCI(ci)
	}
	mn := newMetric(ThroughputMean, unitCallsS, stats.Mean(a.Throughput), stats.Mean(b.Throughput))
	return []Metric{med, mn}
}

// rtMetrics compares the response times of the successful calls: median,
// with an interval from resampling (a subsample of) calls, mean, p90, p99.
func rtMetrics(a, b *Data, o Options) []Metric {
	sa, sb := slices.Sorted(slices.Values(a.RTms)), slices.Sorted(slices.Values(b.RTms))
	med := newMetric(RTMedian, unitMs, stats.Percentile(sa, 50), stats.Percentile(sb, 50))
	xa := subsample(a.RTms, o.MaxSamples, newPCG(o.Seed, streamSubsampleA, 0))
	xb := subsample(b.RTms, o.MaxSamples, newPCG(o.Seed, streamSubsampleB, 0))
	if ci, ok := medianDiffCI(xa, xb, o, streamRT); ok {
		med.setCI(ci)
	}
	return []Metric{
		med,
		newMetric(RTMean, unitMs, stats.Mean(sa), stats.Mean(sb)),
		newMetric(RTP90, unitMs, stats.Percentile(sa, 90), stats.Percentile(sb, 90)),
		newMetric(RTP99, unitMs, stats.Percentile(sa, 99), stats.Percentile(sb, 99)),
	}
}

// errorRateMetric compares the share of calls that failed, in percent.
func errorRateMetric(a, b *Data, o Options) Metric {
	sa, sb := a.Summary.Samples, b.Summary.Samples
	m := newMetric(ErrorRate, unitPct, percent(sa.Failed, sa.Total), percent(sb.Failed, sb.Total))
	if ci, ok := rateDiffCI(sa.Failed, sa.Total, sb.Failed, sb.Total, o); ok {
		m.setCI(ci)
	}
	return m
}

// summaryMetrics compares the figures taken from the summaries as they are,
// without an interval: saturation, maximum load and fairness.
func summaryMetrics(a, b *analyze.Summary) []Metric {
	sat := &Sides{A: a.Saturation.Saturated, B: b.Saturation.Saturated}
	load := newMetric(SaturationLoad, unitLoad, a.Saturation.Load, b.Saturation.Load)
	tput := newMetric(SaturationTput, unitCallsS, a.Saturation.Throughput, b.Saturation.Throughput)
	load.Saturated, tput.Saturated = sat, sat
	return []Metric{
		load,
		tput,
		newMetric(MaxLoad, unitLoad, a.Load.Max, b.Load.Max),
		newMetric(JainFairness, unitJain, a.Fairness.Jain, b.Fairness.Jain),
	}
}

// percent returns 100·n/total, or 0 when total is 0.
func percent(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}
