package threshold

import (
	"fmt"
	"math"
	"strings"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/experiment"
)

// Result is one threshold checked on a run, as summary.json holds it.
type Result struct {
	Name   string  `json:"name"`   // the check as written, with its window unless run: "p99_ms < 250 over last 30s"
	Metric string  `json:"metric"` // canonical metric name
	Op     string  `json:"op"`
	Bound  float64 `json:"bound"`
	Window string  `json:"window"` // run, peak or "last 30s"
	// Observed is the metric's value over the window; nil when the window
	// held no data for it (no successful call, no call, no time), which
	// fails the threshold.
	Observed *float64 `json:"observed"`
	Passed   bool     `json:"passed"`
	Abort    bool     `json:"abort,omitempty"` // it could stop the run early
}

// Failures counts the results of rs that failed.
func Failures(rs []Result) int {
	n := 0
	for _, r := range rs {
		if !r.Passed {
			n++
		}
	}
	return n
}

// Name is the name a threshold's results go by: its check, trimmed, and
// its window unless that is the whole run.
func Name(t experiment.Threshold, w experiment.Window) string {
	name := strings.TrimSpace(t.Check)
	if w.Kind != experiment.WindowRun {
		name += " over " + w.String()
	}
	return name
}

// Evaluate checks every threshold on the analysis res. A threshold the
// experiment's validation would refuse is an error.
func Evaluate(ths []experiment.Threshold, res *analyze.Result) ([]Result, error) {
	out := make([]Result, 0, len(ths))
	for i, t := range ths {
		c, w, err := t.Parsed()
		if err != nil {
			return nil, fmt.Errorf("thresholds[%d]: %w", i, err)
		}
		r := Result{Name: Name(t, w), Metric: c.Metric, Op: c.Op, Bound: c.Bound, Window: w.String(), Abort: t.Abort}
		v, ok := observe(c.Metric, w, res)
		if ok && !math.IsNaN(v) {
			r.Observed, r.Passed = &v, c.Holds(v)
		}
		out = append(out, r)
	}
	return out, nil
}

// observe returns metric over window w of res, and false when there are
// no data for it.
func observe(metric string, w experiment.Window, res *analyze.Result) (float64, bool) {
	s := &res.Summary
	switch metric {
	case experiment.MetricSaturationLoad:
		return s.Saturation.Load, s.Samples.OK > 0
	case experiment.MetricSaturationTput:
		return s.Saturation.Throughput, s.Samples.OK > 0
	case experiment.MetricFairnessJain:
		return s.Fairness.Jain, s.Peak.Testers > 0 && s.Samples.OK > 0
	}
	from, to := quantaOf(w, res)
	f := quantaFigures(res, from, to)
	return f.value(metric)
}

// quantaOf returns the quanta [from, to) of window w: every quantum for
// the run, those that overlap the peak window, the last ⌈N / quantum⌉
// for the last N seconds.
func quantaOf(w experiment.Window, res *analyze.Result) (from, to int) {
	n, q := len(res.Quanta), res.Summary.QuantumS
	if q <= 0 {
		return 0, n
	}
	switch w.Kind {
	case experiment.WindowPeak:
		p := res.Summary.Peak
		from = int(math.Floor(p.StartS/q + 1e-9))
		to = max(int(math.Ceil(p.EndS/q-1e-9)), from+1)
		return max(from, 0), min(to, n)
	case experiment.WindowLast:
		k := int(math.Ceil(w.Last.Seconds()/q - 1e-9))
		return max(n-k, 0), n
	}
	return 0, n
}

// quantaFigures sums quanta [from, to) of res. Throughput and load are
// over the quanta in which a tester was active (every one in a run
// without testers), as the summary's.
func quantaFigures(res *analyze.Result, from, to int) *figures {
	f := &figures{}
	noTesters := len(res.Clients) == 0
	for _, q := range res.Quanta[from:to] {
		f.ok += q.OK
		f.failed += q.Failed
		if q.Active > 0 || noTesters {
			f.seconds += res.Summary.QuantumS
			f.okTimed += q.OK
			f.loadArea += q.Load * res.Summary.QuantumS
		}
	}
	f.rt = res.ResponseTimes(from, to).Bucket()
	f.health = res.TesterHealth(from, to)
	return f
}
