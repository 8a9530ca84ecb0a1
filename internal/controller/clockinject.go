package controller

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

// injectClock returns the tester flags that give slot rec.Slot a wrong clock
// when the experiment asks for one (testbed.clock_skew, clock_drift_ppm): an
// offset drawn uniformly from ±skew and a drift from ±drift_ppm, the same
// for the same slot in every run, so runs can be compared. It records them.
func (c *controller) injectClock(rec *rundir.TesterRecord) []string {
	tb := c.exp.Testbed
	if tb.ClockSkew == 0 && tb.ClockDriftPPM == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(rec.Slot), 0x5eed))
	rec.InjectedOff = int64((2*rng.Float64() - 1) * float64(tb.ClockSkew.D()))
	rec.InjectedDrift = (2*rng.Float64() - 1) * tb.ClockDriftPPM
	return []string{"--clock-offset", time.Duration(rec.InjectedOff).String(),
		"--clock-drift-ppm", strconv.FormatFloat(rec.InjectedDrift, 'g', -1, 64)}
}
