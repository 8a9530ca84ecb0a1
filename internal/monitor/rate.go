package monitor

import "sort"

// Increase is how much a counter grew between two successful scrapes of
// its endpoint, on the controller's clock.
type Increase struct {
	FromNs, ToNs int64
	Value        float64
}

// Level is a gauge's value at one successful scrape.
type Level struct {
	TimeNs int64
	Value  float64
}

// Match chooses label sets; nil matches every one.
type Match func(labels string) bool

// scrapes groups the points of endpoint's successful scrapes by instant:
// time → (metric → labels → value), with the instants in order.
func scrapes(points []Point, endpoint string) ([]int64, map[int64][]Point) {
	ok := map[int64]bool{}
	for _, p := range points {
		if p.Endpoint == endpoint && p.Metric == Up && p.Value == 1 {
			ok[p.TimeNs] = true
		}
	}
	by := map[int64][]Point{}
	for _, p := range points {
		if p.Endpoint == endpoint && ok[p.TimeNs] {
			by[p.TimeNs] = append(by[p.TimeNs], p)
		}
	}
	times := make([]int64, 0, len(ok))
	for t := range ok {
		times = append(times, t)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times, by
}

// values sums metric's series of one scrape by label set, for the label
// sets match chooses.
func values(pts []Point, metric string, match Match) map[string]float64 {
	out := map[string]float64{}
	for _, p := range pts {
		if p.Metric == metric && (match == nil || match(p.Labels)) {
			out[p.Labels] = p.Value
		}
	}
	return out
}

// Increases returns counter metric's growth of endpoint between each two
// consecutive successful scrapes, summed over the label sets match
// chooses. A label set whose value fell was reset: its increase is its
// new value (as Prometheus' increase() counts it); a label set new in the
// later scrape started from zero. Pairs where the metric is absent from
// both scrapes are left out.
func Increases(points []Point, endpoint, metric string, match Match) []Increase {
	times, by := scrapes(points, endpoint)
	var out []Increase
	var prev map[string]float64
	for i, t := range times {
		cur := values(by[t], metric, match)
		if i > 0 && (len(cur) > 0 || len(prev) > 0) {
			sum := 0.0
			for k, v := range cur {
				before, had := prev[k]
				switch {
				case !had, v < before:
					sum += v
				default:
					sum += v - before
				}
			}
			out = append(out, Increase{FromNs: times[i-1], ToNs: t, Value: sum})
		}
		prev = cur
	}
	return out
}

// Levels returns gauge metric's value at each successful scrape of
// endpoint, summed over the label sets match chooses; scrapes without the
// metric are left out.
func Levels(points []Point, endpoint, metric string, match Match) []Level {
	times, by := scrapes(points, endpoint)
	var out []Level
	for _, t := range times {
		cur := values(by[t], metric, match)
		if len(cur) == 0 {
			continue
		}
		sum := 0.0
		for _, v := range cur {
			sum += v
		}
		out = append(out, Level{TimeNs: t, Value: sum})
	}
	return out
}

// Endpoints lists the endpoint names of points, in order of first
// appearance.
func EndpointNames(points []Point) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range points {
		if !seen[p.Endpoint] {
			seen[p.Endpoint] = true
			out = append(out, p.Endpoint)
		}
	}
	return out
}

// HasMetric reports whether endpoint's points include metric.
func HasMetric(points []Point, endpoint, metric string) bool {
	for _, p := range points {
		if p.Endpoint == endpoint && p.Metric == metric {
			return true
		}
	}
	return false
}
