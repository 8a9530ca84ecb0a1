package threshold

import (
	"math"

	"github.com/diperf/diperf/internal/stats"

	"github.com/diperf/diperf/internal/live"
)

// LiveSecond is the Second of the live view's second s, with b its
// bucket (live.Run.OnFinal's; nil: no response times). The testers' health is
// known in it when some tester reported it (HealthN), the host's CPU when
// some tester could see it (HostN); the view has no steal figure, so
// host_steal_pct has no data live.
func LiveSecond(s live.Second, b *stats.Bucket) Second {
	busy := math.NaN()
	if s.HostN > 0 {
		busy = s.HostBusyPct
	}
	return Second{T: s.T, OK: int(s.OK), Failed: int(s.Failed), Load: s.Load, RT: b,
		Health: s.HealthN > 0, TesterCPUPct: s.TesterCPUPct, HostBusyPct: busy, HostStealPct: math.NaN(),
		LagMaxMs: s.LagMaxMs, FDs: s.FDs}
}
