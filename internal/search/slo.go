package search

import (
	"fmt"
	"math"
	"strings"

	"github.com/diperf/diperf/internal/experiment"
)

// What an SLO bounds.
const (
	kindPercentile = iota // pNN_ms: the share of calls over the bound, binomial
	kindErrorRate         // error_rate: the share of failed calls, binomial
	kindMean              // mean_ms: the mean response time, t interval
)

// SLO is one parsed objective: "p99_ms < 200", "error_rate < 1%" or
// "mean_ms < 50". Every SLO is an upper bound.
type SLO struct {
	Text   string  // as given, trimmed: the name the records use
	Metric string  // p99_ms, error_rate or mean_ms
	Bound  float64 // ms, or percent for error_rate
	Rank   float64 // for pNN_ms: NN
	Strict bool    // op < (else <=)
	kind   int
}

// share is the objective of a binomial SLO as a share of calls: the
// highest share of calls over the bound (pNN: 1 − NN/100) or of failed
// calls (error_rate) that meets it.
func (s SLO) share() float64 {
	if s.kind == kindPercentile {
		return 1 - s.Rank/100
	}
	return s.Bound / 100
}

// ParseSLO reads one objective with experiment.ParseCheck's syntax. Only
// upper bounds (< or <=) on pNN_ms (0 < NN < 100), error_rate (above 0%,
// below 100%) and mean_ms (above 0) are objectives a load can meet.
func ParseSLO(text string) (SLO, error) {
	c, err := experiment.ParseCheck(text)
	if err != nil {
		return SLO{}, fmt.Errorf("slo %q: %w", text, err)
	}
	if c.Op != "<" && c.Op != "<=" {
		return SLO{}, fmt.Errorf("slo %q: an objective is an upper bound: want < or <=, got %s", text, c.Op)
	}
	s := SLO{Text: strings.TrimSpace(text), Metric: c.Metric, Bound: c.Bound, Strict: c.Op == "<"}
	rank, isPct := experiment.Percentile(c.Metric)
	switch {
	case isPct && rank < 100:
		s.kind, s.Rank = kindPercentile, rank
	case c.Metric == experiment.MetricErrorRate:
		s.kind = kindErrorRate
	case c.Metric == experiment.MetricMeanMs:
		s.kind = kindMean
	default:
		return SLO{}, fmt.Errorf("slo %q: search decides on pNN_ms (NN below 100), error_rate and mean_ms only, got %s", text, c.Metric)
	}
	return s, s.checkBound()
}

// checkBound refuses a bound no load can meet or every load meets.
func (s SLO) checkBound() error {
	switch {
	case math.IsNaN(s.Bound) || math.IsInf(s.Bound, 0):
		return fmt.Errorf("slo %q: the bound must be a finite number", s.Text)
	case s.kind == kindErrorRate && (s.Bound <= 0 || s.Bound >= 100):
		return fmt.Errorf("slo %q: an error rate objective must lie above 0%% and below 100%%, got %g%%", s.Text, s.Bound)
	case s.kind != kindErrorRate && (s.Bound <= 0 || s.Bound > 3.6e6):
		return fmt.Errorf("slo %q: a response time objective must lie above 0 ms and at most an hour, got %g ms", s.Text, s.Bound)
	}
	return nil
}

// ParseSLOs reads every objective; at least one, at most one a metric.
func ParseSLOs(texts []string) ([]SLO, error) {
	if len(texts) == 0 {
		return nil, fmt.Errorf("search needs at least one objective (--slo \"p99_ms < 200\")")
	}
	seen := map[string]bool{}
	out := make([]SLO, 0, len(texts))
	for _, t := range texts {
		s, err := ParseSLO(t)
		if err != nil {
			return nil, err
		}
		if seen[s.Metric] {
			return nil, fmt.Errorf("slo %q: %s has an objective already: give each metric one", t, s.Metric)
		}
		seen[s.Metric] = true
		out = append(out, s)
	}
	return out, nil
}
