package controller

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
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
	path := c.o.Experiment.SensorsTokenPath()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sensors.token_file: %w", err)
	}
	return directory.NewClient(c.o.Experiment.Sensors.Directory, bytes.TrimSpace(b), &http.Client{Timeout: meshTimeout})
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
	var names []string
	for _, h := range c.ready.Hosts {
		if h == testbed.LocalHost {
			h, _ = os.Hostname()
		}
		names = append(names, exp.Sensors.SensorName(h))
	}
	_, missing, err := c.meshPairs(ctx, names)
	switch {
	case err != nil:
		c.meshNote(err.Error() + meshNoFigures)
	case len(missing) > 0:
		c.meshNote(c.missingNote(missing) + " (checked again at the end of the run)")
	}
}

// meshPairs reads the pairs between names and the target from the
// directory, within meshTimeout.
func (c *controller) meshPairs(ctx context.Context, names []string) ([]sensor.Row, []string, error) {
	exp := c.o.Experiment
	mc, err := c.meshClient()
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), meshTimeout)
	defer cancel()
	rows, missing, err := netmap.Pairs(ctx, mc, exp.SensorsTarget(), names)
	if err != nil {
		return nil, nil, fmt.Errorf("the sensor directory %s: %w", exp.Sensors.Directory, err)
	}
	return rows, missing, nil
}

// missingNote says which sensors the directory has no live registration
// for, and what to do.
func (c *controller) missingNote(missing []string) string {
	exp := c.o.Experiment
	return fmt.Sprintf("the sensor directory %s has no live sensor named %s: start `diperf sensor --name NAME --directory %s ...` "+
		"on that host, or give its sensor's name in sensors.names (tester host: sensor name) or sensors.target (the service's host, now %q)",
		exp.Sensors.Directory, strings.Join(missing, ", "), exp.Sensors.Directory, exp.SensorsTarget())
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
	var names []string
	for _, r := range recs {
		if r.Host != "" {
			names = append(names, exp.Sensors.SensorName(r.Host))
		}
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	rows, missing, err := c.meshPairs(context.Background(), names)
	if err != nil {
		c.meshNote(err.Error() + "; no network.csv" + meshNoFigures)
		return
	}
	if len(missing) > 0 {
		c.meshNote(c.missingNote(missing) + meshNoFigures)
	}
	out := make([]rundir.NetRow, len(rows))
	for i, r := range rows {
		out[i] = rundir.NetRow{Src: r.Src, Dst: r.Dst, BandwidthBps: r.BandwidthBps, LatencyMs: r.LatencyMs,
			MeasuredAt: r.MeasuredAt, Estimated: r.Estimated, Via: r.Via}
	}
	if err := rundir.WriteNetwork(c.o.Dir, out); err != nil {
		c.meshNote("writing network.csv: " + err.Error() + meshNoFigures)
		return
	}
	c.events.Add("sensors", -1, "", fmt.Sprintf("network.csv: %d pairs of %d tester hosts and %s", len(out), len(names), exp.SensorsTarget()))
}
