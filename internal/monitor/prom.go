package monitor

import (
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Series is one sample of a parsed page: a metric, its label set
// (canonical, see Point.Labels) and value.
type Series struct {
	Metric string
	Labels string
	Value  float64
}

// ParsePrometheus reads a page in the Prometheus text exposition format
// and returns its samples, sorted by metric then labels: each line's
// sample is one series, so that a summary gives its quantiles (label
// quantile), NAME_sum and NAME_count, and a histogram its buckets as
// NAME_bucket (label le), NAME_sum and NAME_count. It holds every series
// of the page: the scraper keeps a bounded number as they come instead.
func ParsePrometheus(r io.Reader) ([]Series, error) {
	var out []Series
	if err := scanPrometheus(r, func(s Series) { out = append(out, s) }); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return before(out[i], out[j]) })
	return out, nil
}

// pair renders one label as name="value", the value quoted as in the
// exposition format.
func pair(name, value string) string { return name + "=" + strconv.Quote(value) }

// canonical sorts label pairs and joins them with commas.
func canonical(pairs []string) string {
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}

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
