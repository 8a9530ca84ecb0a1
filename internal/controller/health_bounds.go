package controller

import (
	"fmt"
	"math"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// nan is the value of a figure the tester did not have.
func nan() float64 { return math.NaN() }

// checkHealth checks the figures of one of s's health seconds against
// what is physically possible at now; nil if every one is.
func (c *controller) checkHealth(s *slot, r protocol.HealthSecond, now int64) error {
	switch {
	case !(r.CPUCores > 0 && r.CPUCores <= maxHealthCores):
		return fmt.Errorf("health: %v CPU cores is not in (0, %d]", r.CPUCores, maxHealthCores)
	case !(r.CPUPct >= 0 && r.CPUPct <= 100+healthCPUSlack):
		return fmt.Errorf("health: CPU %v%% is not in [0, %v] %% of what the tester may use", r.CPUPct, 100+healthCPUSlack)
	case !pctOK(r.HostBusyPct), !pctOK(r.HostStealPct), !pctOK(r.ThrottledPct):
		return fmt.Errorf("health: host busy, steal or throttled share is not in [0, 100] %%")
	case r.Starts < 0 || r.Starts > maxHealthStarts:
		return fmt.Errorf("health: %d calls started in a second is not in [0, %d]", r.Starts, int(maxHealthStarts))
	case r.FDLimit < 0 || r.FDLimit > maxHealthFDs:
		return fmt.Errorf("health: descriptor limit %d is not in [0, %d]", r.FDLimit, maxHealthFDs)
	case r.FDs < 0 || r.FDs > maxHealthFDs || (r.FDLimit > 0 && r.FDs > r.FDLimit):
		return fmt.Errorf("health: %d open descriptors is negative or over the limit %d", r.FDs, r.FDLimit)
	case !(r.LagMeanMs >= 0 && r.LagMeanMs <= r.LagMaxMs || r.Starts == 0 && r.LagMeanMs == 0 && r.LagMaxMs == 0):
		return fmt.Errorf("health: schedule lag mean %v ms and max %v ms are negative or the mean is over the max", r.LagMeanMs, r.LagMaxMs)
	case r.Starts == 0 && (r.LagMeanMs != 0 || r.LagMaxMs != 0):
		return fmt.Errorf("health: a schedule lag with no call started")
	}
	if err := s.claims.count("health: calls started in a second", uint64(r.Starts), now); err != nil {
		return err
	}
	return s.claims.duration("health: schedule lag", int64(r.LagMaxMs*float64(time.Millisecond)), now)
}

// pctOK reports whether a share the tester may leave out is absent or in
// [0, 100] %.
func pctOK(p *float64) bool { return p == nil || (*p >= 0 && *p <= 100) }
