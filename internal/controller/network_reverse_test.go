package controller

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/sensor"
)

// The run's note on pairs known only the other way names each pair, says
// network.csv leaves them out, and names the command that measures each.
func TestReverseNote(t *testing.T) {
	n := reverseNote([]sensor.Row{{Src: "svc", Dst: "h1", BandwidthBps: 12.99e9, Basis: sensor.BasisReverse}}, "http://dir:7300")
	for _, want := range []string{"only the reverse direction is measured for svc → h1", "error unknown", "network.csv leaves them out",
		"`diperf probe svc h1 --directory http://dir:7300`"} {
		if !strings.Contains(n, want) {
			t.Errorf("note %q lacks %q", n, want)
		}
	}
	if strings.Contains(n, "12.99") {
		t.Errorf("note %q gives the other direction's figure", n)
	}
}
