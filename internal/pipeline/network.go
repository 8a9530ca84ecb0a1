package pipeline

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
)

// joinNetwork gives, in a run with the experiment key sensors, every
// client of res its host's links to and from the target, read from the
// run's network.csv (no file, or no row for a host: empty links). A
// network.csv that cannot be read is said on progress, never an error:
// the network figures are an extra of the run.
func (d *Dataset) joinNetwork(res *analyze.Result) {
	s := d.Experiment.Sensors
	if s == nil {
		return
	}
	rows, err := rundir.ReadNetwork(d.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && d.progress != nil {
		fmt.Fprintf(d.progress, "the run's network figures are left out: %v\n", err)
	}
	target := d.Experiment.SensorsTarget()
	byHost := map[string]analyze.NetLink{}
	for _, c := range res.Clients {
		if _, done := byHost[c.Host]; !done {
			byHost[c.Host] = netLink(rows, s.SensorName(c.Host), target)
		}
	}
	res.SetNetwork(byHost)
}

// netLink is the link between sensor name and target in rows: bandwidth
// each way, the latency and time of name → target (else of target →
// name), estimated when either row is.
func netLink(rows []rundir.NetRow, name, target string) analyze.NetLink {
	to, okTo := rundir.NetPair(rows, name, target)
	from, okFrom := rundir.NetPair(rows, target, name)
	var l analyze.NetLink
	if okFrom {
		l = analyze.NetLink{FromTargetBps: from.BandwidthBps, LatencyMs: from.LatencyMs, MeasuredAt: from.MeasuredAt, Estimated: from.Estimated}
	}
	if okTo {
		l.BandwidthBps, l.Estimated = to.BandwidthBps, l.Estimated || to.Estimated
		if to.LatencyMs > 0 {
			l.LatencyMs = to.LatencyMs
		}
		if !to.MeasuredAt.IsZero() {
			l.MeasuredAt = to.MeasuredAt
		}
	}
	return l
}
