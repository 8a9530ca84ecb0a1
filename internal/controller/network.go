package controller

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sensor"
	"github.com/diperf/diperf/internal/testbed"
)

// meshTimeout bounds each exchange with the sensor directory: a directory
// that does not answer costs the run this much at its start and its end.
const meshTimeout = 10 * time.Second

// meshNoFigures ends every note on the sensor directory: what it means
// for the run.
const meshNoFigures = "; the run goes on, and clients.csv's net_* columns stay empty where figures are missing"

// meshClient opens the client of the experiment's sensor directory.
func (c *controller) meshClient() (*directory.Client, error) {
	b, err := directory.ReadTokenFile(c.o.Experiment.Sensors.TokenFile)
	if err != nil {
		return nil, fmt.Errorf("sensors.token_file: %w", err)
	}
	hc, err := directory.HTTPClient(c.o.Experiment.Sensors.CAFile, meshTimeout)
	if err != nil {
		return nil, fmt.Errorf("sensors.ca_file: %w", err)
	}
	return directory.NewClient(c.o.Experiment.Sensors.Directory, b, hc)
}

// meshNote says something about the sensor mesh on the progress output
// and in the event log.
func (c *controller) meshNote(msg string) {
	c.events.Add("sensors", -1, "", msg)
	if c.o.Progress != nil {
		fmt.Fprintln(c.o.Progress, "sensors: "+msg)
	}
}

// checkMesh asks the sensor directory, before the first tester starts,
// whether it answers and knows the target's and the testbed's sensors,
// and warns when not: the run never depends on it.
func (c *controller) checkMesh(ctx context.Context) {
	exp := c.o.Experiment
	if exp.Sensors == nil {
		return
	}
	var hosts, names []string
	for _, h := range c.ready.Hosts {
		if h == testbed.LocalHost {
			h, _ = os.Hostname()
		}
		hosts, names = append(hosts, h), append(names, exp.Sensors.SensorName(h))
	}
	l, err := c.meshPairs(ctx, names)
	switch {
	case err != nil:
		c.meshNote(err.Error() + meshNoFigures)
	case len(l.Missing) > 0:
		c.meshNote(c.missingNote(l.Missing, hosts) + " (checked again at the end of the run)")
	}
	if err == nil {
		c.siteSensors(l.Peers)
	}
}

// meshPairs reads the pairs between names and the target from the
// directory, within meshTimeout.
func (c *controller) meshPairs(ctx context.Context, names []string) (netmap.Links, error) {
	exp := c.o.Experiment
	mc, err := c.meshClient()
	if err != nil {
		return netmap.Links{}, err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), meshTimeout)
	defer cancel()
	l, err := netmap.PairLinks(ctx, mc, exp.SensorsTarget(), names)
	if err != nil {
		return netmap.Links{}, fmt.Errorf("the sensor directory %s: %w", exp.Sensors.Directory, err)
	}
	return l, nil
}

// missingNote says which sensors the directory has no live registration
// for (each with the tester hosts of hosts whose sensor it is, or as the
// target), and what to do.
func (c *controller) missingNote(missing, hosts []string) string {
	exp := c.o.Experiment
	named := make([]string, len(missing))
	for i, n := range missing {
		var of []string
		if n == exp.SensorsTarget() {
			of = append(of, "the target")
		}
		for _, h := range hosts {
			if exp.Sensors.SensorName(h) == n {
				of = append(of, "tester host "+h)
			}
		}
		named[i] = n
		if len(of) > 0 {
			named[i] += " (" + strings.Join(slices.Compact(of), ", ") + ")"
		}
	}
	return fmt.Sprintf("the sensor directory %s has no live sensor named %s: start `diperf sensor --name NAME --directory %s ...` "+
		"on that host, or give its sensor's name in sensors.names (tester host: sensor name) or sensors.target",
		exp.Sensors.Directory, strings.Join(named, ", "), exp.Sensors.Directory)
}

// writeNetwork reads, at the end of the run, the figures between each
// tester host's sensor and the target's from the sensor directory into
// network.csv, so that the analysis (now or later) needs no network. A
// directory that fails leaves no network.csv and says so once.
func (c *controller) writeNetwork(recs []*rundir.TesterRecord) {
	exp := c.o.Experiment
	if exp.Sensors == nil {
		return
	}
	var hosts, names []string
	for _, r := range recs {
		if r.Host != "" {
			hosts, names = append(hosts, r.Host), append(names, exp.Sensors.SensorName(r.Host))
		}
	}
	hosts = slices.Compact(slices.Sorted(slices.Values(hosts)))
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	l, err := c.meshPairs(context.Background(), names)
	if err != nil {
		c.meshNote(err.Error() + "; no network.csv" + meshNoFigures)
		return
	}
	rows, missing := l.Rows, l.Missing
	if len(missing) > 0 {
		c.meshNote(c.missingNote(missing, hosts) + meshNoFigures)
	}
	if len(l.Reverse) > 0 {
		c.meshNote(reverseNote(l.Reverse, exp.Sensors.Directory) + meshNoFigures)
	}
	if none := unmeasured(append(slices.Clone(rows), l.Reverse...), names, missing, exp.SensorsTarget()); len(none) > 0 {
		c.meshNote(fmt.Sprintf("the sensor directory %s has no figures yet between %s and %s: the sensors test each pair "+
			"once per round of their schedule (diperf sensor --period)%s", exp.Sensors.Directory, strings.Join(none, ", "),
			exp.SensorsTarget(), meshNoFigures))
	}
	out := make([]rundir.NetRow, len(rows))
	for i, r := range rows {
		out[i] = rundir.NetRow{Src: r.Src, Dst: r.Dst, BandwidthBps: r.BandwidthBps, LatencyMs: r.LatencyMs,
			MeasuredAt: r.MeasuredAt, Estimated: r.Estimated, Via: r.Via, Basis: r.Basis}
	}
	if err := rundir.WriteNetwork(c.o.Dir, out); err != nil {
		c.meshNote("writing network.csv: " + err.Error() + meshNoFigures)
		return
	}
	c.events.Add("sensors", -1, "", fmt.Sprintf("network.csv: %d pairs of %d tester hosts and %s", len(out), len(names), exp.SensorsTarget()))
}

// unmeasured returns the names, registered (not in missing), that have no
// row from or to target in rows.
func unmeasured(rows []sensor.Row, names, missing []string, target string) []string {
	var out []string
	for _, n := range names {
		if n == target || slices.Contains(missing, n) {
			continue
		}
		if !slices.ContainsFunc(rows, func(r sensor.Row) bool { return r.Src == n || r.Dst == n }) {
			out = append(out, n)
		}
	}
	return out
}
