package experiment

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Threshold is one entry of the thresholds key (docs/thresholds.md): a
// check such as "p99_ms < 250" over a window of the run. In the file an
// entry is either the check alone, as a string, or a mapping with the
// keys below.
type Threshold struct {
	Check string `yaml:"check"`          // METRIC OP NUMBER, e.g. "error_rate < 1%"
	Over  string `yaml:"over,omitempty"` // "run" (default, also ""), "peak" or "last DURATION"
	// Abort stops the run early once the check, watched live, has failed
	// for For in a row (windows run and last N only).
	Abort bool     `yaml:"abort,omitempty"`
	For   Duration `yaml:"for,omitempty"` // how long the check must fail before an abort (0: at once)
}

// Threshold windows: what part of the run a check is over.
const (
	WindowRun  = "run"  // every quantum of the run (live: every second so far)
	WindowPeak = "peak" // the peak window (known only at the end)
	WindowLast = "last" // the last N seconds (Window.Last)
)

// Window is a threshold's parsed over key.
type Window struct {
	Kind string        // WindowRun, WindowPeak or WindowLast
	Last time.Duration // for WindowLast: how far back from the run's end
}

// String writes w as in the file: "run", "peak" or "last 30s".
func (w Window) String() string {
	if w.Kind == WindowLast {
		return WindowLast + " " + w.Last.String()
	}
	return w.Kind
}

// ParseWindow reads a threshold's over key: "", "run", "peak" or
// "last DURATION" (e.g. "last 30s").
func ParseWindow(s string) (Window, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", WindowRun:
		return Window{Kind: WindowRun}, nil
	case WindowPeak:
		return Window{Kind: WindowPeak}, nil
	}
	rest, ok := strings.CutPrefix(s, WindowLast)
	if !ok || strings.TrimSpace(rest) == "" || rest[0] != ' ' {
		return Window{}, fmt.Errorf("want run, peak or \"last DURATION\" (e.g. last 30s), got %q", s)
	}
	d, err := time.ParseDuration(strings.TrimSpace(rest))
	switch {
	case err != nil:
		return Window{}, fmt.Errorf("want \"last DURATION\" with a duration such as 30s or 2m, got %q", s)
	case d <= 0 || d > MaxDuration:
		return Window{}, fmt.Errorf("the last window must be more than 0 and at most %s, got %v", maxDurationText, d)
	}
	return Window{Kind: WindowLast, Last: d}, nil
}

// Threshold operators.
var thresholdOps = []string{"<=", ">=", "==", "<", ">"} // two-character ones first

// Check is a threshold's parsed check: Metric Op Bound.
type Check struct {
	Metric string  // canonical metric name (median_ms reads as p50_ms)
	Op     string  // <, <=, >, >= or ==
	Bound  float64 // in the metric's unit (error_rate: percent)
}

// Holds reports whether observed v meets c.
func (c Check) Holds(v float64) bool {
	switch c.Op {
	case "<":
		return v < c.Bound
	case "<=":
		return v <= c.Bound
	case ">":
		return v > c.Bound
	case ">=":
		return v >= c.Bound
	}
	return v == c.Bound
}

// Threshold metrics. Percentiles other than these are written pN_ms, e.g.
// p95_ms or p99.9_ms.
const (
	MetricMeanMs         = "mean_ms"               // mean response time of the successful calls
	MetricMaxMs          = "max_ms"                // longest response time of a successful call
	MetricErrorRate      = "error_rate"            // failed / (ok + failed) calls, percent
	MetricThroughput     = "throughput"            // successful calls per second
	MetricLoad           = "load"                  // mean offered load (calls in flight)
	MetricSaturationLoad = "saturation.load"       // offered load at saturation (whole run)
	MetricSaturationTput = "saturation.throughput" // throughput at saturation (whole run)
	MetricFairnessJain   = "fairness.jain"         // Jain's index over the peak window (whole run)
	metricMedianAlias    = "median_ms"             // reads as p50_ms
	// The testers' health (health.csv, docs/design/018-tester-health.md):
	// the highest of any tester in any second of the window.
	MetricTesterCPU       = "tester_cpu_pct"  // a tester's CPU, % of the CPU it may use
	MetricHostBusy        = "host_busy_pct"   // busy share of the host CPUs a tester may run on, %
	MetricHostSteal       = "host_steal_pct"  // stolen share of them, %
	MetricScheduleLag     = "schedule_lag_ms" // how late a call started behind its schedule, ms
	MetricTesterFDs       = "tester_fds"      // a tester's open descriptors
	metricPercentileNamed = "p50_ms, p90_ms, p99_ms"
)

// metricNames are the names "did you mean" picks from.
var metricNames = []string{"p50_ms", "p90_ms", "p95_ms", "p99_ms", "p99.9_ms", metricMedianAlias, MetricMeanMs, MetricMaxMs,
	MetricErrorRate, MetricThroughput, MetricLoad, MetricSaturationLoad, MetricSaturationTput, MetricFairnessJain,
	MetricTesterCPU, MetricHostBusy, MetricHostSteal, MetricScheduleLag, MetricTesterFDs}

// percentileMetric matches pN_ms, N a percentile rank.
var percentileMetric = regexp.MustCompile(`^p(\d{1,2}(\.\d+)?|100)_ms$`)

// Percentile returns the rank of a pN_ms metric (50 for p50_ms), and false
// for any other metric.
func Percentile(metric string) (float64, bool) {
	m := percentileMetric.FindStringSubmatch(metric)
	if m == nil {
		return 0, false
	}
	p, err := strconv.ParseFloat(m[1], 64)
	return p, err == nil && p > 0 && p <= 100
}

// RunOnly reports whether metric has one value for the whole run, so that
// it can only be checked over the run.
func RunOnly(metric string) bool {
	return metric == MetricSaturationLoad || metric == MetricSaturationTput || metric == MetricFairnessJain
}

// knownMetric reports whether name is a metric a check may name.
func knownMetric(name string) bool {
	if _, ok := Percentile(name); ok {
		return true
	}
	switch name {
	case MetricMeanMs, MetricMaxMs, MetricErrorRate, MetricThroughput, MetricLoad,
		MetricSaturationLoad, MetricSaturationTput, MetricFairnessJain,
		MetricTesterCPU, MetricHostBusy, MetricHostSteal, MetricScheduleLag, MetricTesterFDs:
		return true
	}
	return false
}

// PercentMetric reports whether metric is a percent, whose bound may be
// written with a trailing %: error_rate and the testers' CPU figures.
func PercentMetric(metric string) bool {
	switch metric {
	case MetricErrorRate, MetricTesterCPU, MetricHostBusy, MetricHostSteal:
		return true
	}
	return false
}

// ParseCheck reads "METRIC OP NUMBER", e.g. "p99_ms < 250" or
// "error_rate < 1%" (error_rate is a percent, with or without the %).
func ParseCheck(s string) (Check, error) {
	i, op := -1, ""
	for _, o := range thresholdOps {
		if i = strings.Index(s, o); i >= 0 {
			op = o
			break
		}
	}
	if i < 0 {
		return Check{}, fmt.Errorf("want METRIC OP NUMBER with OP one of < <= > >= ==, e.g. \"p99_ms < 250\", got %q", s)
	}
	c := Check{Metric: strings.TrimSpace(s[:i]), Op: op}
	if c.Metric == metricMedianAlias {
		c.Metric = "p50_ms"
	}
	if !knownMetric(c.Metric) {
		return Check{}, fmt.Errorf("unknown metric %q%s (known: %s, pN_ms, %s, %s, %s, %s, %s, %s, %s, %s, %s)", c.Metric, suggest(c.Metric, metricNames),
			metricPercentileNamed, MetricMeanMs, MetricMaxMs, MetricErrorRate, MetricThroughput, MetricLoad, MetricSaturationLoad, MetricSaturationTput, MetricFairnessJain,
			strings.Join([]string{MetricTesterCPU, MetricHostBusy, MetricHostSteal, MetricScheduleLag, MetricTesterFDs}, ", "))
	}
	bound, err := parseBound(s[i+len(op):], PercentMetric(c.Metric))
	if err != nil {
		return Check{}, fmt.Errorf("%s: %w", c.Metric, err)
	}
	c.Bound = bound
	return c, nil
}

// parseBound reads a check's number; a trailing % only for a percent.
func parseBound(s string, percent bool) (float64, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		if !percent {
			return 0, fmt.Errorf("only error_rate, tester_cpu_pct, host_busy_pct and host_steal_pct are percents, got %q", s)
		}
		s = strings.TrimSpace(p)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a number after the operator, got %q", s)
	}
	return f, nil
}

// Parsed returns t's check and window, checked together: a whole-run
// metric only over the run, an abort never over the peak window (it is
// not known until the run ends).
func (t Threshold) Parsed() (Check, Window, error) {
	c, err := ParseCheck(t.Check)
	if err != nil {
		return Check{}, Window{}, err
	}
	w, err := t.Window()
	if err != nil {
		return Check{}, Window{}, err
	}
	return c, w, nil
}

// Window returns t's parsed over key.
func (t Threshold) Window() (Window, error) {
	return ParseWindow(t.Over)
}

// thresholds checks every entry of the thresholds key.
func (v *validator) thresholds() {
	for i, t := range v.e.Thresholds {
		key := "thresholds[" + strconv.Itoa(i) + "]"
		c, cerr := ParseCheck(t.Check)
		if cerr != nil {
			v.addAt(key+".check", key, cerr.Error())
		}
		w, werr := t.Window()
		if werr != nil {
			v.addAt(key+".over", key, werr.Error())
		}
		switch {
		case cerr == nil && werr == nil && RunOnly(c.Metric) && w.Kind != WindowRun:
			v.addAt(key+".over", key, fmt.Sprintf("%s has one value for the whole run: over must be run, got %q", c.Metric, t.Over))
		case werr == nil && t.Abort && w.Kind == WindowPeak:
			v.addAt(key+".abort", key, "the peak window is known only when the run ends: an abort needs over: run or last DURATION")
		case cerr == nil && t.Abort && RunOnly(c.Metric):
			v.addAt(key+".abort", key, c.Metric+" is known only when the run ends: it cannot abort a run")
		}
		if t.For != 0 && !t.Abort {
			v.addAt(key+".for", key, "has no use without abort: true")
		}
		v.notNegative(key+".for", t.For)
	}
}

// addAt records a problem with key at the line key was set on, else at
// the line of its entry.
func (v *validator) addAt(key, entry, msg string) {
	line := v.e.lines[key]
	if line == 0 {
		line = v.e.lines[entry]
	}
	v.problems = append(v.problems, Problem{File: v.e.file, Line: line, Key: key, Msg: msg})
}
