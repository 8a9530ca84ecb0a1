package controller

import (
	"bytes"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sensor"
)

// siteRun is a controller as far as sites go: an experiment with the
// sensors key (host b's sensor named sensor-b) and its progress.
func siteRun(t *testing.T) (*controller, *bytes.Buffer) {
	t.Helper()
	ev, err := rundir.CreateEventLog(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	exp, err := experiment.Parse([]byte("name: t\nclient: {exec: [true]}\nsensors:\n  directory: http://d:1\n  token_file: tok\n  target: svc\n  names: {b: sensor-b}\n"), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	return &controller{exp: exp, events: ev, o: Options{Experiment: exp, Progress: &progress}}, &progress
}

// Each tester host gets its sensor's site (through sensors.names); a host
// whose sensor has none, or no host, gets none; sites no name may hold
// are refused and said.
func TestApplySites(t *testing.T) {
	c, progress := siteRun(t)
	c.siteSensors([]sensor.Peer{{Name: "a", Site: "north"}, {Name: "sensor-b", Site: "south"}, {Name: "c"},
		{Name: "d", Site: "evil\x1b[2J"}, {Name: "e", Site: strings.Repeat("x", rundir.MaxSite+1)}})
	recs := []*rundir.TesterRecord{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}, {Host: "e"}, {Host: "f"}, {}}
	c.applySites(recs)
	for i, want := range []string{"north", "south", "", "", "", "", ""} {
		if recs[i].Site != want {
			t.Errorf("host %q: site %q, want %q", recs[i].Host, recs[i].Site, want)
		}
	}
	if !strings.Contains(progress.String(), "the sites of 2 sensors were refused") {
		t.Errorf("progress %q does not say the refused sites", progress.String())
	}
}

// A run without the sensors key gives no site, whatever the mesh said.
func TestApplySitesWithoutSensors(t *testing.T) {
	c, _ := siteRun(t)
	c.siteSensors([]sensor.Peer{{Name: "a", Site: "north"}})
	c.o.Experiment.Sensors = nil
	recs := []*rundir.TesterRecord{{Host: "a"}, {Host: "b"}}
	c.applySites(recs)
	if recs[0].Site != "" || recs[1].Site != "" {
		t.Errorf("sites %q, %q", recs[0].Site, recs[1].Site)
	}
}
