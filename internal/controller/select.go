package controller

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/placement"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
)

// selectTimeout bounds gathering the figures of testbed.select: the
// directory's answers, the on-demand tests, the idle CPU of every host.
const selectTimeout = 2 * time.Minute

// selectHosts applies testbed.select, once the testbed is prepared and
// before any tester starts: it gathers every candidate's figures,
// chooses, says on the progress output why each host was chosen or left
// out, and narrows the testbed's hosts to the chosen, in order. Fewer
// hosts qualifying than asked refuse the run (exit 2), naming why each
// was left out, unless select.allow_fewer.
func (c *controller) selectHosts(ctx context.Context) error {
	rules := placement.RulesOf(c.exp)
	if rules == nil {
		return nil
	}
	hosts := make([]placement.Host, len(c.ready.Hosts))
	for i, h := range c.ready.Hosts {
		hosts[i] = placement.Host{Name: h, Sensor: c.sensorOf(h)}
	}
	gctx, cancel := context.WithTimeout(ctx, selectTimeout)
	defer cancel()
	cands := placement.Gather(gctx, hosts, c.selectSources())
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("testbed.select: %w", err)
	}
	res := placement.Choose(cands, *rules)
	c.sel = &res
	for _, d := range res.Decisions {
		c.selectPrint("select: %s %s: %s\n", map[bool]string{true: "chose", false: "left out"}[d.Chosen], d.Host, d.Reason)
	}
	if len(res.Chosen) == 0 || (res.Short(*rules) && !c.exp.Testbed.Select.AllowFewer) {
		return errs.Usage(fmt.Errorf("testbed.select: %d of the %d hosts asked for qualify, out of %d candidates:\n%s",
			len(res.Chosen), rules.Testers, len(hosts), leftOut(res)),
			"loosen testbed.select's rules, add hosts, or set testbed.select.allow_fewer: true to run on the hosts that qualify")
	}
	c.ready.Hosts = res.Chosen
	c.ready.Shared = c.selectedShare()
	return nil
}

// selectedShare says how the testers are shared over the hosts chosen,
// and when a host takes more than testbed.testers_per_host (as
// select.allow_fewer lets it), says so.
func (c *controller) selectedShare() string {
	share := c.ready.Share(c.exp.Schedule.Testers)
	s := fmt.Sprintf("testbed.select: %d testers over the %d hosts chosen: %s", c.exp.Schedule.Testers, len(c.ready.Hosts), c.ready.ShareText(share))
	if most, per := slices.Max(share), max(c.exp.Testbed.TestersPerHost, 1); most > per {
		s += fmt.Sprintf("; up to %d on a host, beyond testbed.testers_per_host %d, as testbed.select.allow_fewer allows", most, per)
	}
	return s
}

// leftOut lists the hosts left out, each with its reason, one a line.
func leftOut(res placement.Result) string {
	var b strings.Builder
	for _, d := range res.Decisions {
		if !d.Chosen {
			fmt.Fprintf(&b, "  %s: %s\n", d.Host, d.Reason)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// selectPrint writes to the progress output, if any.
func (c *controller) selectPrint(format string, args ...any) {
	if c.o.Progress != nil {
		fmt.Fprintf(c.o.Progress, format, args...)
	}
}

// sensorOf is the sensor name of tester host h: the local testbed's host
// is this machine's host name.
func (c *controller) sensorOf(h string) string {
	if h == testbed.LocalHost {
		h, _ = os.Hostname()
	}
	if c.exp.Sensors == nil {
		return h
	}
	return c.exp.Sensors.SensorName(h)
}

// selectSources are where the figures come from: the experiment's sensor
// mesh (with on-demand tests unless select.probe is false) and the
// testbed's idle CPU check.
func (c *controller) selectSources() placement.Sources {
	var s placement.Sources
	if p, ok := c.o.Testbed.(testbed.CPUProber); ok {
		s.CPU = p
	}
	if c.exp.Sensors == nil {
		return s
	}
	s.Target = c.exp.SensorsTarget()
	mc, err := c.meshClient()
	if err != nil {
		s.Mesh = failedMesh{err}
		return s
	}
	names := make([]string, len(c.ready.Hosts))
	for i, h := range c.ready.Hosts {
		names[i] = c.sensorOf(h)
	}
	s.Mesh = &meshLinks{c: mc, target: s.Target, names: names}
	if c.exp.SelectProbe() {
		s.Probe = probeRunner(mc)
	}
	return s
}

// recordSelection writes, once the run's files are open, one event
// host-chosen or host-left-out per candidate (its reason and figures)
// and selection.csv.
func (c *controller) recordSelection() {
	if c.sel == nil {
		return
	}
	rows := make([]rundir.SelectRow, len(c.sel.Decisions))
	for i, d := range c.sel.Decisions {
		kind := "host-left-out"
		if d.Chosen {
			kind = "host-chosen"
		}
		c.events.Add(kind, -1, "", d.Host+": "+d.Reason)
		r := rundir.SelectRow{Order: d.Order, Host: d.Host, Site: d.Site, Chosen: d.Chosen, Reason: d.Reason, IdleCPU: d.IdleCPU}
		if d.Link != nil {
			r.BandwidthBps, r.LatencyMs, r.Basis = d.Link.BandwidthBps, d.Link.LatencyMs, d.Link.Basis
		}
		rows[i] = r
	}
	if n := len(c.sel.Chosen); n < c.exp.SelectTesters() {
		c.events.Add("testbed-note", -1, "", fmt.Sprintf("testbed.select.allow_fewer: %d hosts chosen of the %d asked for; "+
			"the %d testers take them in turn", n, c.exp.SelectTesters(), c.exp.Schedule.Testers))
	}
	if err := rundir.WriteSelection(c.o.Dir, rows); err != nil {
		c.events.Add("testbed-note", -1, "", "writing "+rundir.Selection+": "+err.Error())
	}
}

// markChosen gives each tester record the reason its host was chosen.
func (c *controller) markChosen(recs []*rundir.TesterRecord) {
	if c.sel == nil {
		return
	}
	why := map[string]string{}
	for _, d := range c.sel.Decisions {
		why[d.Host] = d.Reason
	}
	for _, r := range recs {
		r.Chosen = why[c.ready.HostFor(r.Slot)]
	}
}
