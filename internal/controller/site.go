package controller

import (
	"fmt"
	"sync"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sensor"
)

// siteMap is where the run's tester hosts are: by sensor name, the sites
// the sensor mesh's sensors registered (read at the run's start).
// testers.csv's site column is what it gives.
type siteMap struct {
	mu       sync.Mutex
	bySensor map[string]string // sensor name → its site
}

// siteSensors keeps the site of each peer, refusing (and noting once,
// with the first reason) those rundir.CheckSite refuses.
func (c *controller) siteSensors(peers []sensor.Peer) {
	by := map[string]string{}
	refused, first := 0, ""
	for _, p := range peers {
		if err := rundir.CheckSite(p.Site); err != nil {
			if refused++; refused == 1 {
				first = fmt.Sprintf("sensor %q: %v", clip(p.Name, 80), err)
			}
			continue
		}
		if p.Site != "" {
			by[p.Name] = p.Site
		}
	}
	if refused > 0 {
		c.meshNote(fmt.Sprintf("the sites of %d sensors were refused and left empty (the first: %s)", refused, first))
	}
	c.sites.mu.Lock()
	c.sites.bySensor = by
	c.sites.mu.Unlock()
}

// applySites gives each record the site of its host's sensor
// (sensors.names maps a host to its sensor); "" when it is not known.
func (c *controller) applySites(recs []*rundir.TesterRecord) {
	if c.o.Experiment.Sensors == nil {
		return
	}
	c.sites.mu.Lock()
	defer c.sites.mu.Unlock()
	for _, r := range recs {
		if r.Host != "" {
			r.Site = c.sites.bySensor[c.o.Experiment.Sensors.SensorName(r.Host)]
		}
	}
}
