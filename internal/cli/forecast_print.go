package cli

import (
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/human"
	"github.com/diperf/diperf/internal/sensor"
)

// printForecast writes a's figures for people: each with its expected
// error and where it comes from (the forecaster, the hierarchy's
// sensors), and a figure of the other direction as such, without a value
// to use.
func printForecast(e *env, a forecastAnswer) {
	for _, k := range []struct {
		name string
		f    *pairForecast
		unit func(float64) string
	}{{"bandwidth", a.BandwidthBps, human.Bits}, {"latency  ", a.LatencyMs, human.Millis}} {
		if k.f == nil {
			continue
		}
		fmt.Fprintf(e.stdout, "%s %s → %s: %s\n", k.name, a.Src, a.Dst, forecastText(a, k.f, k.unit))
	}
}

// forecastText is one figure's text.
func forecastText(a forecastAnswer, f *pairForecast, unit func(float64) string) string {
	switch f.Basis {
	case sensor.BasisReverse:
		if len(f.Via) > 0 {
			return fmt.Sprintf("reverse (error unknown): via %s, a hop measured only the other way gives %s, not used (measure it: diperf probe %s %s)",
				strings.Join(f.Via, ", "), unit(f.Value), a.Src, a.Dst)
		}
		return fmt.Sprintf("reverse (error unknown): %s → %s gives %s, not used for %s → %s (measure it: diperf probe %s %s)",
			a.Dst, a.Src, unit(f.Value), a.Src, a.Dst, a.Src, a.Dst)
	case sensor.BasisHierarchy:
		return fmt.Sprintf("%s ± %s (estimated via %s)", unit(f.Value), unit(f.Error), strings.Join(f.Via, ", "))
	}
	return fmt.Sprintf("%s ± %s (%s)", unit(f.Value), unit(f.Error), f.Method)
}
