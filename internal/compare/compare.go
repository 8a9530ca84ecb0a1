// Package compare answers "did my change make it faster?": it compares two
// runs side by side (B − A) and says, with percentile-bootstrap confidence
// intervals, which differences are larger than the runs' own noise.
// Throughput is compared at matched load (see cellRun), so that the ramp-up
// does not hide a slower service; when an interval includes zero, the
// verdict says how large a change the runs could have detected (MDCPct).
//
// The comparison works on Data, which holds only what it needs (the
// per-quantum throughputs, the successful calls' response times and the
// summary), so that it can be computed from run directories (Runs) or from
// figures built in memory (Compare).
package compare

import (
	"math"
	"time"

	"github.com/diperf/diperf/internal/analyze"
)

// Defaults of Options.
const (
	DefaultResamples  = 1000    // bootstrap resamples
	DefaultSeed       = 1       // bootstrap seed
	DefaultMaxSamples = 200_000 // response times per run kept for the bootstrap
)

// Options choose how to compare. The zero value is the default.
type Options struct {
	Resamples  int           // bootstrap resamples; 0 = DefaultResamples
	Seed       uint64        // bootstrap seed, for reproducible intervals; 0 = DefaultSeed
	MaxSamples int           // response times per run kept for the bootstrap (≤ 2³¹−1); 0 = DefaultMaxSamples
	Quantum    time.Duration // Runs only: aggregation quantum of both runs; 0 = each run's own
	Clock      string        // Runs only: clock mode of both runs (pipeline.ClockSync, the default, or ClockRaw)
}

// withDefaults returns o with its zero fields set to the defaults.
func (o Options) withDefaults() Options {
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.MaxSamples <= 0 {
		o.MaxSamples = DefaultMaxSamples
	}
	o.MaxSamples = min(o.MaxSamples, math.MaxInt32) // resampled indices are int32

	return o
}

// Data is one run reduced to what the comparison needs.
type Data struct {
	Name       string          // experiment name
	Dir        string          // run directory, "" for data built in memory
	Throughput []float64       // calls/s of each quantum in which a tester was active
	Load       []float64       // offered load of those quanta (calls in flight), nil: unknown
	RTms       []float64       // response time of every successful call, ms, any order (Load: a uniform sample beyond 2 Mi calls)
	Summary    analyze.Summary // the run's summary: call counts, saturation, load, fairness
}

// Run identifies one side of a comparison.
type Run struct {
	Name   string `json:"name"`
	Dir    string `json:"dir,omitempty"`
	Calls  int    `json:"calls"`  // every call
	OK     int    `json:"ok"`     // successful calls
	Failed int    `json:"failed"` // failed calls (cancelled ones excluded)
	Quanta int    `json:"quanta"` // quanta with a tester active
	// Saturation is the run's saturation verdict in words ("saturated at
	// load …", "not saturated within the tested range …", "limited by
	// the testers …", "too little data to tell …").
	Saturation string `json:"saturation,omitempty"`
}

// Comparison is the result of comparing run B with run A. Differences are
// B − A; relative differences are relative to A.
type Comparison struct {
	A         Run      `json:"a"`
	B         Run      `json:"b"`
	Resamples int      `json:"resamples"`
	Seed      uint64   `json:"seed"`
	Metrics   []Metric `json:"metrics"`
	Verdicts  Verdicts `json:"verdicts"`
}

// Verdicts say in words what the comparison found.
type Verdicts struct {
	ResponseTime string `json:"response_time"`
	Throughput   string `json:"throughput"`
}

// Metric is one figure of both runs and their difference. The interval
// fields are set only for the metrics with a bootstrap interval, and
// RelPct only when A is not zero.
type Metric struct {
	Name        string   `json:"name"`
	Unit        string   `json:"unit"`
	A           float64  `json:"a"`
	B           float64  `json:"b"`
	Diff        float64  `json:"diff"`                  // B − A
	RelPct      *float64 `json:"rel_pct,omitempty"`     // 100·(B − A)/A
	CILow       *float64 `json:"ci_low,omitempty"`      // 95% interval of B − A
	CIHigh      *float64 `json:"ci_high,omitempty"`     // 95% interval of B − A
	Significant *bool    `json:"significant,omitempty"` // the interval excludes 0
	// MDCPct is the smallest change, in percent of A, that the interval
	// could tell from zero: its half-width relative to A. A smaller
	// observed change is "not detected", not "no change".
	MDCPct    *float64 `json:"mdc_pct,omitempty"`
	Quanta    *int     `json:"quanta,omitempty"`    // ThroughputMatched: the matched quanta it weighs
	Saturated *Sides   `json:"saturated,omitempty"` // saturation metrics: did each run saturate
}

// Sides holds a flag of each run.
type Sides struct {
	A bool `json:"a"`
	B bool `json:"b"`
}

// Metric names, as they appear in Comparison.Metrics.
const (
	ThroughputMedian = "throughput median"
	ThroughputMean   = "throughput mean"
	RTMedian         = "response time median"
	RTMean           = "response time mean"
	RTP90            = "response time p90"
	RTP99            = "response time p99"
	ErrorRate        = "error rate"
	SaturationLoad   = "saturation load"
	SaturationTput   = "saturation throughput"
	MaxLoad          = "max load"
	JainFairness     = "jain fairness"
)

// Metric returns the metric called name, or nil.
func (c *Comparison) Metric(name string) *Metric {
	for i := range c.Metrics {
		if c.Metrics[i].Name == name {
			return &c.Metrics[i]
		}
	}
	return nil
}
