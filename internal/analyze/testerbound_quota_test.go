package analyze

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// quotaStarved is a tester sharing a cgroup's CPU quota (0.1 core) with
// five others: it uses 15% of that quota itself, its host is 40% busy, its
// calls start on time; the cgroup was throttled in pct % of its periods.
func quotaStarved(pct float64) *sample.Health {
	return &sample.Health{CPUPct: 15, CPUCores: 0.1, HostBusyPct: 40, HostStealPct: 0, ThrottledPct: pct,
		LagMeanMs: 0.01, LagMaxMs: 0.02, Starts: 2, FDs: 16, FDLimit: 1024}
}

// TestTesterBoundThrottledQuota: testers whose shared CPU quota is used up
// (their cgroup throttled in most periods) are starved though none of
// them shows a high CPU share of its own, a busy host or a late schedule;
// a cgroup throttled now and then is not.
func TestTesterBoundThrottledQuota(t *testing.T) {
	t.Parallel()
	r := healthRun(t, time.Second, 6, 0, 5, 900, func(int, int64) *sample.Health { return quotaStarved(92) })
	want := "CPU quota throttled 92% (6 of 6 testers)"
	for i, b := range boundQuanta(r) {
		if b != want {
			t.Errorf("quantum %d: tester_bound %q, want %q", i, b, want)
		}
	}
	r = healthRun(t, time.Second, 6, 0, 5, 900, func(int, int64) *sample.Health { return quotaStarved(30) })
	for i, b := range boundQuanta(r) {
		if b != "" {
			t.Errorf("throttled in 30%% of periods: quantum %d tester_bound %q, want none", i, b)
		}
	}
}

// TestHealthThrottledRefused: a throttled share outside [0, 100] % is no
// measurement: the row is refused and counted.
func TestHealthThrottledRefused(t *testing.T) {
	t.Parallel()
	r := healthRun(t, time.Second, 1, 0, 3, 100, func(_ int, s int64) *sample.Health {
		h := quotaStarved(92)
		if s == 1 {
			h.ThrottledPct = 250
		}
		return h
	})
	if got := r.Summary.Testers.HealthRefused; got != 1 {
		t.Errorf("%d rows refused, want 1 (throttled 250%%)", got)
	}
}
