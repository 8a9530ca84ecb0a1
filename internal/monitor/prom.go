package monitor

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Series is one sample of a parsed page: a metric, its label set
// (canonical, see Point.Labels) and value.
type Series struct {
	Metric string
	Labels string
	Value  float64
}

// ParsePrometheus reads a page in the Prometheus text exposition format
// and returns its samples, sorted by metric then labels. Counters, gauges
// and untyped samples are one series each; a summary gives its quantiles
// (label quantile), NAME_sum and NAME_count; a histogram its buckets as
// NAME_bucket (label le), NAME_sum and NAME_count.
func ParsePrometheus(r io.Reader) ([]Series, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse Prometheus text: %w", err)
	}
	var out []Series
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			out = appendMetric(out, name, f.GetType(), m)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Metric != out[j].Metric {
			return out[i].Metric < out[j].Metric
		}
		return out[i].Labels < out[j].Labels
	})
	return out, nil
}

// appendMetric appends the series of one metric of family name.
func appendMetric(out []Series, name string, typ dto.MetricType, m *dto.Metric) []Series {
	lbl := labelPairs(m.GetLabel())
	add := func(metric string, v float64, extra ...string) {
		out = append(out, Series{Metric: metric, Labels: canonical(append(slicesClone(lbl), extra...)), Value: v})
	}
	switch typ {
	case dto.MetricType_COUNTER:
		add(name, m.GetCounter().GetValue())
	case dto.MetricType_GAUGE:
		add(name, m.GetGauge().GetValue())
	case dto.MetricType_SUMMARY:
		s := m.GetSummary()
		for _, q := range s.GetQuantile() {
			add(name, q.GetValue(), pair("quantile", formatFloat(q.GetQuantile())))
		}
		add(name+"_sum", s.GetSampleSum())
		add(name+"_count", float64(s.GetSampleCount()))
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		h := m.GetHistogram()
		for _, b := range h.GetBucket() {
			add(name+"_bucket", float64(b.GetCumulativeCount()), pair("le", formatFloat(b.GetUpperBound())))
		}
		add(name+"_sum", h.GetSampleSum())
		add(name+"_count", float64(h.GetSampleCount()))
	default:
		add(name, m.GetUntyped().GetValue())
	}
	return out
}

// labelPairs renders a metric's labels as name="value" strings.
func labelPairs(ls []*dto.LabelPair) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, pair(l.GetName(), l.GetValue()))
	}
	return out
}

// pair renders one label as name="value", the value quoted as in the
// exposition format.
func pair(name, value string) string { return name + "=" + strconv.Quote(value) }

// canonical sorts label pairs and joins them with commas.
func canonical(pairs []string) string {
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}

// slicesClone copies s so appends to it do not share storage.
func slicesClone(s []string) []string { return append([]string(nil), s...) }

// formatFloat renders a bound or quantile as Prometheus does (+Inf).
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// LabelValue returns the value of label name in canonical label set
// labels ("" when absent).
func LabelValue(labels, name string) string {
	for len(labels) > 0 {
		eq := strings.IndexByte(labels, '=')
		if eq < 0 {
			return ""
		}
		key := labels[:eq]
		rest := labels[eq+1:]
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return ""
		}
		if key == name {
			v, _ := strconv.Unquote(q)
			return v
		}
		labels = strings.TrimPrefix(rest[len(q):], ",")
	}
	return ""
}
