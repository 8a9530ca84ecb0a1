package dashboard

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/diperf/diperf/internal/live"
)

// rtBuckets are the response-time histogram's upper bounds, seconds.
var rtBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// collector turns the run's live state into Prometheus metrics at each
// scrape (nothing is kept between scrapes).
type collector struct {
	run                                                 *live.Run
	browsers                                            func() int // how many browsers the dashboard streams to
	calls, tput, load, rt, testers, recv, pending, info *prometheus.Desc
	offset, bound, active, clients                      *prometheus.Desc
}

func newCollector(run *live.Run, browsers func() int) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("diperf_"+name, help, labels, nil)
	}
	return &collector{run: run, browsers: browsers,
		calls:   d("calls_total", "Client calls ended, by outcome class.", "class"),
		tput:    d("throughput_calls_per_second", "Successful calls in the last complete second."),
		load:    d("offered_load", "Mean calls in flight in the last complete second."),
		active:  d("active_testers", "Testers running their client loop in the last complete second."),
		rt:      d("response_time_seconds", "Response time of successful calls over the run so far."),
		testers: d("testers", "Testers by state.", "state"),
		recv:    d("samples_received_total", "Samples received by the controller."),
		pending: d("samples_pending", "Samples the testers made that the controller has not received (lost or still in flight)."),
		offset:  d("clock_max_abs_offset_seconds", "Largest absolute clock offset over the testers' latest syncs."),
		bound:   d("clock_max_error_bound_seconds", "Largest error bound over the testers' latest clock syncs."),
		info:    d("run_info", "The run being measured.", "name", "state"),
		clients: d("dashboard_clients", "Browsers the live dashboard streams updates to."),
	}
}

// Describe sends every metric's description.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.calls, c.tput, c.load, c.active, c.rt, c.testers, c.recv, c.pending, c.offset, c.bound, c.info, c.clients} {
		ch <- d
	}
}

// Collect reads the run's state once and sends every metric.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.run.Snapshot(c.run.Now().Unix() - recentSeconds)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for class, n := range s.Totals.ByClass {
		ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(n), class)
	}
	if last, ok := lastComplete(s.Seconds, s.NowNs); ok {
		gauge(c.tput, float64(last.OK))
		gauge(c.load, last.Load)
		gauge(c.active, float64(last.Active))
	}
	for _, st := range []string{live.StateLaunched, live.StateJoined, live.StateRunning, live.StateDone, live.StateFailed} {
		gauge(c.testers, float64(s.States[st]), st)
	}
	ch <- prometheus.MustNewConstMetric(c.recv, prometheus.CounterValue, float64(s.Totals.Received))
	gauge(c.pending, float64(s.Totals.Pending))
	gauge(c.offset, s.ClockMax.AbsOffsetMs/1e3)
	gauge(c.bound, s.ClockMax.BoundMs/1e3)
	gauge(c.info, 1, s.Name, s.State)
	gauge(c.clients, float64(c.browsers()))
	ch <- c.histogram()
}

// lastComplete picks the newest second that ended a second or more ago:
// testers ship samples every DefaultBatch (half a second), so by then its
// calls have come.
func lastComplete(secs []live.Second, nowNs int64) (live.Second, bool) {
	for i := len(secs) - 1; i >= 0; i-- {
		if (secs[i].T+2)*1e9 <= nowNs {
			return secs[i], true
		}
	}
	return live.Second{}, false
}

// histogram builds the response-time histogram from the run's HDR
// histogram (µs): cumulative counts at each bucket bound.
func (c *collector) histogram() prometheus.Metric {
	h, sum := c.run.Whole()
	buckets := make(map[float64]uint64, len(rtBuckets))
	for _, ub := range rtBuckets {
		buckets[ub] = 0
	}
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		for _, ub := range rtBuckets {
			if float64(b.To)/1e6 <= ub {
				buckets[ub] += uint64(b.Count)
			}
		}
	}
	return prometheus.MustNewConstHistogram(c.rt, uint64(h.TotalCount()), sum/1e3, buckets)
}
