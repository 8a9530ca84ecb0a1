// Package monitor is the run's server view: it scrapes the pages a run's
// experiment lists under monitor: (Prometheus text exposition, such as
// node_exporter's or the demo target's /metrics, or nginx's stub_status)
// every interval while the run goes, reads each page line by line
// keeping a bounded set of its series (by number and by bytes, never the
// page whole), follows no redirect off the endpoint's origin, and
// hands each scrape's points, stamped on the controller's wall clock, to a
// sink (the controller writes them to monitor.csv through rundir). It also
// holds the arithmetic of a counter's increases between scrapes (resets
// included) that the report and `diperf validate` share, and the host
// collector `diperf monitor` exposes for a host with no exporter.
//
// The package knows nothing of the run directory nor of the analysis.
package monitor

// Point is one value of one series at one scrape: what a row of
// monitor.csv holds.
type Point struct {
	TimeNs   int64   // the scrape's instant, Unix ns on the controller's clock
	Endpoint string  // the endpoint's name in the experiment
	Metric   string  // the metric name, e.g. node_cpu_seconds_total
	Labels   string  // the label set, canonical: name="value" pairs sorted by name, comma-separated
	Value    float64 // the sample's value
}

// Metric names the scraper adds to each endpoint's points.
const (
	Up             = "up"                      // 1 when the scrape succeeded, 0 when it failed
	ScrapeDuration = "scrape_duration_seconds" // from the request to the end of the response
	SeriesDropped  = "scrape_series_dropped"   // series of the page left out (past the cap, or not kept)
)
