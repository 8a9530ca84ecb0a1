package directory

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// metrics answers /metrics: the latest figures of every pair in the
// Prometheus text exposition format (version 0.0.4).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	latest, err := s.store.LatestResults(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	sensors, err := s.store.Sensors(r.Context(), "", s.now())
	if err != nil {
		writeError(w, err)
		return
	}
	var b bytes.Buffer
	WriteMetrics(&b, latest, sensors)
	s.refused.write(&b)
	s.probes.write(&b)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(b.Bytes()) //nolint:errcheck // the scraper went away
}

// metricFamily is one # HELP/# TYPE block and its samples.
type metricFamily struct {
	name, help, typ string
	samples         []string
}

func (f *metricFamily) add(labels string, v float64) {
	f.samples = append(f.samples, f.name+"{"+labels+"} "+strconv.FormatFloat(v, 'g', -1, 64))
}

func (f *metricFamily) write(w io.Writer) {
	if len(f.samples) == 0 {
		return
	}
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.typ)
	for _, s := range f.samples {
		fmt.Fprintln(w, s)
	}
}

// WriteMetrics writes the exposition of the latest results (one per
// src, dst, kind) and of the sensors' states.
func WriteMetrics(w io.Writer, latest []Result, sensors []Sensor) {
	bw := &metricFamily{name: "diperf_net_bandwidth_bps", typ: "gauge",
		help: "Throughput of the latest bandwidth test from src to dst over the whole test, bits/s."}
	ss := &metricFamily{name: "diperf_net_bandwidth_after_slow_start_bps", typ: "gauge",
		help: "Throughput of the latest bandwidth test from src to dst after TCP slow start, bits/s."}
	lat := &metricFamily{name: "diperf_net_latency_ms", typ: "gauge",
		help: "Request/response latency of the latest latency test from src to dst, ms, by quantile."}
	at := &metricFamily{name: "diperf_net_measured_at_seconds", typ: "gauge",
		help: "When the latest test of each kind from src to dst was made, Unix seconds."}
	slices.SortFunc(latest, func(a, b Result) int {
		return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst), cmp.Compare(a.Kind, b.Kind))
	})
	for _, r := range latest {
		pair := `src="` + escapeLabel(r.Src) + `",dst="` + escapeLabel(r.Dst) + `"`
		if r.Kind == KindBandwidth {
			bw.add(pair, r.BandwidthBps)
			ss.add(pair, r.BandwidthAfterSlowStartBps)
		} else {
			lat.add(pair+`,quantile="0.5"`, r.LatencyP50Ms)
			lat.add(pair+`,quantile="0.9"`, r.LatencyP90Ms)
			lat.add(pair+`,quantile="0.99"`, r.LatencyP99Ms)
		}
		at.add(pair+`,kind="`+r.Kind+`"`, float64(r.MeasuredAt.UnixNano())/1e9)
	}
	busy, missed := sensorCounters(latest)
	st := &metricFamily{name: "diperf_directory_sensors", typ: "gauge",
		help: "Registered sensors by state (stale: stopped renewing its lease)."}
	n := map[string]int{}
	for _, s := range sensors {
		n[s.State]++
	}
	st.add(`state="live"`, float64(n[StateLive]))
	st.add(`state="stale"`, float64(n[StateStale]))
	for _, f := range []*metricFamily{bw, ss, lat, at, busy, missed, st} {
		f.write(w)
	}
}

// sensorCounters are each source sensor's busy and missed counters as of
// its newest result.
func sensorCounters(latest []Result) (busy, missed *metricFamily) {
	busy = &metricFamily{name: "diperf_sensor_busy_tests_total", typ: "counter",
		help: "Tests the sensor started whose far end answered busy, as of its newest result."}
	missed = &metricFamily{name: "diperf_sensor_missed_tests_total", typ: "counter",
		help: "Tests the sensor missed, as of its newest result."}
	newest := map[string]Result{}
	for _, r := range latest {
		if o, ok := newest[r.Src]; !ok || r.MeasuredAt.After(o.MeasuredAt) || r.MeasuredAt.Equal(o.MeasuredAt) && r.ID > o.ID {
			newest[r.Src] = r
		}
	}
	for _, src := range slices.Sorted(maps.Keys(newest)) {
		l := `sensor="` + escapeLabel(src) + `"`
		busy.add(l, float64(newest[src].Busy))
		missed.add(l, float64(newest[src].Missed))
	}
	return busy, missed
}

// labelEscaper escapes a label value: backslash, double quote, newline
// (made once: building a Replacer costs more than using it).
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// escapeLabel escapes a label value.
func escapeLabel(s string) string { return labelEscaper.Replace(s) }
