package search

import (
	"testing"

	"github.com/diperf/diperf/internal/stats"
)

// A second whose bucket's exact figures and histogram count different
// calls (a mean of calls the histogram does not hold, or none at all for
// a histogram's calls) is refused and counted, not measured: its mean
// would be of other calls than its percentiles.
func TestBucketDisagreesRefused(t *testing.T) {
	cfg := mustDefaults(t, Config{SLOs: mustSLOs(t, "mean_ms < 15"), Start: 1})
	st := newStep(&cfg, 1, 100, 30)
	histOnly := Second{OK: 100, RT: stats.NewBucket(), Offered: 100}
	stats.RecordRT(histOnly.RT.Hist, 500_000_000) // 500 ms calls the exact figures miss
	_ = histOnly.RT.Hist.RecordValues(500_000, 99)
	exactOnly := Second{OK: 100, RT: &stats.Bucket{}, Offered: 100}
	exactOnly.RT.AddRTs(5_000_000, 100) // no histogram
	for _, s := range []Second{second(100, 5, 100), histOnly, exactOnly} {
		st.Add(s)
	}
	for !st.Add(second(100, 5, 100)) {
	}
	if r := st.Record(); r.Refused != 2 || r.Decision != Meets {
		t.Errorf("step %+v: want 2 seconds refused and meets", r)
	}
}
