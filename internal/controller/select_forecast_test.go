package controller

import (
	"math"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/sensor"
)

// TestForecastLink: a pair's own forecast and a hierarchy estimate with
// a known error are usable, with that error; the other direction's figure
// (the 12.99 Gbit/s over a 20 Mbit/s path) is there but never
// usable; no bandwidth forecast is no link.
func TestForecastLink(t *testing.T) {
	own := netmap.PairFigures{Bandwidth: netmap.Figure{Value: 20e6, Error: 1e6, Method: "last", Basis: sensor.BasisMeasured, ErrorKnown: true, Usable: true},
		Latency: netmap.Figure{Value: 4, Error: 0.5, Basis: sensor.BasisMeasured, ErrorKnown: true, Usable: true}}
	if l, ok := forecastLink(own); !ok || !l.Usable || l.BandwidthBps != 20e6 || l.ErrBps != 1e6 || l.LatencyMs != 4 || l.Basis != "forecast (last)" {
		t.Errorf("own forecast: %+v, %v", l, ok)
	}
	est := netmap.PairFigures{Bandwidth: netmap.Figure{Value: 9e7, Error: 2e7, Basis: sensor.BasisHierarchy, Via: []string{"ga", "gb"}, ErrorKnown: true, Usable: true}}
	if l, ok := forecastLink(est); !ok || !l.Usable || l.ErrBps != 2e7 || l.LatencyMs != 0 || !strings.Contains(l.Basis, "via ga gb") {
		t.Errorf("hierarchy estimate: %+v, %v", l, ok)
	}
	rev := netmap.PairFigures{Bandwidth: netmap.Figure{Value: 12.99e9, Basis: sensor.BasisReverse}}
	if l, ok := forecastLink(rev); !ok || l.Usable || !math.IsNaN(l.ErrBps) || !strings.Contains(l.Basis, "error unknown") {
		t.Errorf("reverse figure: %+v, %v: want present, not usable", l, ok)
	}
	if _, ok := forecastLink(netmap.PairFigures{}); ok {
		t.Error("no forecast gave a link")
	}
}
