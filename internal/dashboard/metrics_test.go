package dashboard

import (
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// labelled finds the metric of family f whose label name has value v.
func labelled(f *dto.MetricFamily, name, v string) *dto.Metric {
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == name && l.GetValue() == v {
				return m
			}
		}
	}
	return nil
}

func TestMetricsParseWithTheRunsFigures(t *testing.T) {
	s := start(t, fedRun(t), Options{})
	code, body := authed(t, s, "/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	want := map[string]dto.MetricType{
		"diperf_calls_total": dto.MetricType_COUNTER, "diperf_throughput_calls_per_second": dto.MetricType_GAUGE,
		"diperf_offered_load": dto.MetricType_GAUGE, "diperf_active_testers": dto.MetricType_GAUGE,
		"diperf_response_time_seconds": dto.MetricType_HISTOGRAM, "diperf_testers": dto.MetricType_GAUGE,
		"diperf_samples_received_total": dto.MetricType_COUNTER, "diperf_samples_pending": dto.MetricType_GAUGE,
		"diperf_clock_max_abs_offset_seconds": dto.MetricType_GAUGE, "diperf_clock_max_error_bound_seconds": dto.MetricType_GAUGE,
		"diperf_run_info": dto.MetricType_GAUGE, "diperf_dashboard_clients": dto.MetricType_GAUGE,
	}
	for name, typ := range want {
		f := fams[name]
		if f == nil || f.GetType() != typ || len(f.GetMetric()) == 0 {
			t.Errorf("metric %s: %v, want a %v", name, f, typ)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if m := labelled(fams["diperf_calls_total"], "class", "ok"); m == nil || m.GetCounter().GetValue() != 40 {
		t.Errorf("calls ok: %v, want 40", m)
	}
	if m := labelled(fams["diperf_calls_total"], "class", "failed"); m == nil || m.GetCounter().GetValue() != 2 {
		t.Errorf("calls failed: %v, want 2", m)
	}
	// now is base+6: the last second ended 2 s ago is base+4, of 10 calls
	if v := fams["diperf_throughput_calls_per_second"].GetMetric()[0].GetGauge().GetValue(); v != 10 {
		t.Errorf("throughput %v, want 10 (second base+4)", v)
	}
	if v := fams["diperf_samples_received_total"].GetMetric()[0].GetCounter().GetValue(); v != 42 {
		t.Errorf("samples received %v, want 42", v)
	}
	for state, n := range map[string]float64{"running": 1, "failed": 1, "done": 0} {
		if m := labelled(fams["diperf_testers"], "state", state); m == nil || m.GetGauge().GetValue() != n {
			t.Errorf("testers %s: %v, want %v", state, m, n)
		}
	}
	if m := labelled(fams["diperf_run_info"], "name", "unit"); m == nil || labelled(fams["diperf_run_info"], "state", "running") == nil {
		t.Errorf("run_info: %v", fams["diperf_run_info"])
	}
	if v := fams["diperf_dashboard_clients"].GetMetric()[0].GetGauge().GetValue(); v != 0 {
		t.Errorf("dashboard clients %v, want 0", v)
	}
	h := fams["diperf_response_time_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 40 || h.GetSampleSum() < 0.79 || h.GetSampleSum() > 0.81 {
		t.Errorf("response-time histogram: %d calls, sum %v s; want 40 calls of 20 ms (0.8 s)", h.GetSampleCount(), h.GetSampleSum())
	}
	for _, b := range h.GetBucket() {
		want := uint64(40)
		if b.GetUpperBound() < 0.02 {
			want = 0
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}
