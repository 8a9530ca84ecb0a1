package controller

import (
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/sensor"
)

// reverseNote says which pairs the sensor directory knows only from the
// other direction (rows: basis reverse), that their figures are left out
// of network.csv, and how to measure each.
func reverseNote(rows []sensor.Row, dir string) string {
	pairs := make([]string, len(rows))
	probes := make([]string, len(rows))
	for i, r := range rows {
		pairs[i] = r.Src + " → " + r.Dst
		probes[i] = fmt.Sprintf("`diperf probe %s %s --directory %s`", r.Src, r.Dst, dir)
	}
	return fmt.Sprintf("only the reverse direction is measured for %s: its figures say nothing of this direction (error unknown), "+
		"so network.csv leaves them out; measure it with %s", strings.Join(pairs, ", "), strings.Join(probes, ", "))
}
