package threshold

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/live"
)

// LiveSecond is the Second of the live view's second s, with h its
// successful calls' response times (nil: none). The testers' health is
// known in it when any of its health figures is above 0 (a tester that
// reports uses some CPU and holds a descriptor; live.Second holds 0 until
// one does); the view has no steal figure, so host_steal_pct has no data
// live.
func LiveSecond(s live.Second, h *hdr.Histogram) Second {
	known := s.FDs > 0 || s.TesterCPUPct > 0 || s.HostBusyPct > 0 || s.LagMaxMs > 0
	return Second{T: s.T, OK: int(s.OK), Failed: int(s.Failed), Load: s.Load, RT: h,
		Health: known, TesterCPUPct: s.TesterCPUPct, HostBusyPct: s.HostBusyPct, HostStealPct: math.NaN(),
		LagMaxMs: s.LagMaxMs, FDs: s.FDs}
}
