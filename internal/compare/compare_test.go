package compare

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestSameDistributionFalsePositives(t *testing.T) {
	t.Parallel()
	const trials = 100
	hits := map[string]int{}
	small := base.with(func(s *spec) { s.calls = 300; s.quanta = 60 })
	for i := range uint64(trials) {
		a, b := synth(small, 2*i+1), synth(small, 2*i+2)
		c := Compare(a, b, Options{Resamples: 200, Seed: i + 1})
		for _, name := range []string{RTMedian, ThroughputMedian, ErrorRate} {
			if *c.Metric(name).Significant {
				hits[name]++
			}
		}
	}
	for name, n := range hits {
		if n > trials/10 {
			t.Errorf("%s: %d%% of same-distribution pairs significant, want ≤ 10%%", name, 100*n/trials)
		}
	}
	t.Logf("false positives out of %d: %v", trials, hits)
}

func TestDetectsDifferences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		b       spec   // run B; run A is base
		metric  string // the metric to check
		sig     bool   // whether its difference should be significant
		sign    int    // the sign of B − A when significant
		verdict string // what the verdict of the metric's kind should say
	}{
		// B's calls take 20% less time: B is faster
		{"faster", base.with(func(s *spec) { s.rtMs = 40 }), RTMedian, true, -1, "B is faster: median response time"},
		// B's calls take 20% more time: B is slower
		{"slower", base.with(func(s *spec) { s.rtMs = 60 }), RTMedian, true, 1, "B is slower"},
		// B serves 15% more calls per second
		{"more throughput", base.with(func(s *spec) { s.tput = 230 }), ThroughputMedian, true, 1, "B has higher throughput"},
		// B serves 15% fewer calls per second
		{"less throughput", base.with(func(s *spec) { s.tput = 170 }), ThroughputMedian, true, -1, "B has lower throughput"},
		// B fails 6% of its calls instead of 2%
		{"more errors", base.with(func(s *spec) { s.failures = 0.06 }), ErrorRate, true, 1, ""},
		// B never fails
		{"no errors", base.with(func(s *spec) { s.failures = 0 }), ErrorRate, true, -1, ""},
		// B is A's twin from other draws: response times do not differ
		{"same response time", base, RTMedian, false, 0, "no change detected in median response time"},
		// nor does throughput
		{"same throughput", base, ThroughputMedian, false, 0, "no change detected in throughput at matched load"},
	}
	a := synth(base, 1)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Compare(a, synth(tt.b, 2), Options{})
			m := c.Metric(tt.metric)
			if m.Significant == nil || *m.Significant != tt.sig {
				t.Fatalf("%s: significant %v, want %v (%+v)", tt.metric, m.Significant, tt.sig, m)
			}
			if tt.sig && (m.Diff > 0) != (tt.sign > 0) {
				t.Errorf("%s: B−A = %g, want sign %d", tt.metric, m.Diff, tt.sign)
			}
			v := verdictOf(c, tt.metric)
			if !strings.Contains(v, tt.verdict) {
				t.Errorf("verdict %q, want it to contain %q", v, tt.verdict)
			}
		})
	}
}

// verdictOf returns the verdict about the kind of metric name.
func verdictOf(c *Comparison, name string) string {
	switch name {
	case RTMedian:
		return c.Verdicts.ResponseTime
	case ThroughputMedian:
		return c.Verdicts.Throughput
	}
	return ""
}

func TestNotEnoughData(t *testing.T) {
	t.Parallel()
	tiny := base.with(func(s *spec) { s.calls = minSamples - 1; s.quanta = minSamples - 1; s.failures = 0 })
	c := Compare(synth(base, 1), synth(tiny, 2), Options{})
	for _, name := range []string{RTMedian, ThroughputMedian, ErrorRate} {
		if m := c.Metric(name); m.Significant != nil || m.CILow != nil {
			t.Errorf("%s has an interval from %d values", name, minSamples-1)
		}
	}
	if !strings.HasPrefix(c.Verdicts.ResponseTime, "not enough") || !strings.HasPrefix(c.Verdicts.Throughput, "not enough") {
		t.Errorf("verdicts %+v", c.Verdicts)
	}
}

func TestEmptyRuns(t *testing.T) {
	t.Parallel()
	c := Compare(&Data{}, &Data{}, Options{})
	for _, m := range c.Metrics {
		if m.A != 0 || m.B != 0 || m.RelPct != nil || m.Significant != nil {
			t.Errorf("%+v from empty runs", m)
		}
	}
	if _, err := json.Marshal(c); err != nil {
		t.Fatal(err)
	}
}

func TestReproducible(t *testing.T) {
	t.Parallel()
	a, b := synth(base, 1), synth(base.with(func(s *spec) { s.rtMs = 48 }), 2)
	c1, c2 := Compare(a, b, Options{Seed: 7}), Compare(a, b, Options{Seed: 7})
	if !reflect.DeepEqual(c1, c2) {
		t.Fatal("two comparisons with the same seed differ")
	}
	if c3 := Compare(a, b, Options{Seed: 8}); *c3.Metric(RTMedian).CILow == *c1.Metric(RTMedian).CILow {
		t.Error("another seed gave the same interval")
	}
}

func TestSubsampledInterval(t *testing.T) {
	t.Parallel()
	big := base.with(func(s *spec) { s.calls = 5000 })
	a, b := synth(big, 1), synth(big.with(func(s *spec) { s.rtMs = 40 }), 2)
	c := Compare(a, b, Options{MaxSamples: 1000})
	m := c.Metric(RTMedian)
	if !*m.Significant || *m.CILow > m.Diff || *m.CIHigh < m.Diff-20 {
		t.Errorf("interval [%g, %g] of a %g difference from 1000 of 5000 calls", *m.CILow, *m.CIHigh, m.Diff)
	}
}

func TestMetricValues(t *testing.T) {
	t.Parallel()
	a := &Data{Throughput: []float64{1, 2, 3, 4}, RTms: []float64{4, 1, 3, 2}}
	b := &Data{Throughput: []float64{2, 4, 6, 8}, RTms: []float64{10, 20}}
	a.Summary.Samples.Total, a.Summary.Samples.Failed = 10, 1
	a.Summary.Saturation.Load, b.Summary.Saturation.Load = 4, 6
	c := Compare(a, b, Options{})
	tests := []struct {
		name      string
		a, b, rel float64
	}{
		// nearest-rank medians: the lower middle value
		{ThroughputMedian, 2, 4, 100},
		{ThroughputMean, 2.5, 5, 100},
		{RTMedian, 2, 10, 400},
		{RTP99, 4, 20, 400},
		// 1 of 10 calls failed in A; B made none, so its rate is 0
		{ErrorRate, 10, 0, -100},
		// taken from the summaries
		{SaturationLoad, 4, 6, 50},
	}
	for _, tt := range tests {
		m := c.Metric(tt.name)
		if m.A != tt.a || m.B != tt.b || m.Diff != tt.b-tt.a || *m.RelPct != tt.rel {
			t.Errorf("%s: %+v, want a %g b %g rel %g", tt.name, m, tt.a, tt.b, tt.rel)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	a := synth(base, 1)
	b := synth(base.with(func(s *spec) { s.rtMs = 40 }), 2)
	b.Summary.Saturation.Saturated = false
	c := Compare(a, b, Options{Resamples: 200})
	c.A.Dir = "runs/a"
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Comparison
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, &back) {
		t.Errorf("round trip changed the comparison:\n%s", data)
	}
	for _, want := range []string{`"name":"response time median"`, `"rel_pct":`, `"ci_low":`, `"significant":true`, `"response_time":"B is faster`, `"saturated":{"a":true,"b":false}`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("JSON lacks %s:\n%s", want, data)
		}
	}
	var raw struct{ Metrics []map[string]any }
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, m := range raw.Metrics {
		if _, ok := m["significant"]; ok != (m["name"] == RTMedian || m["name"] == ThroughputMedian || m["name"] == ThroughputMatched || m["name"] == ErrorRate) {
			t.Errorf("metric %v: significant present %v", m["name"], ok)
		}
	}
}
