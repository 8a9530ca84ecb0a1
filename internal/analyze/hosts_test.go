package analyze

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// Hosts sum their testers: a host of one tester has its tester's own
// figures, the hosts' calls add up to the run's, a tester that missed
// the peak window counts in the host's calls but not in its peak figures,
// and the testers' sites make the sites.
func TestHostFiguresSumTesters(t *testing.T) {
	t.Parallel()
	ts := []Tester{tester(0, 0, 10), tester(1, 0, 10), tester(2, 0, 10), tester(3, 10, 11)}
	ts[0].Host, ts[1].Host, ts[2].Host, ts[3].Host = "x", "y", "y", "y"
	ts[0].Site, ts[1].Site, ts[2].Site, ts[3].Site = "s", "s", "s", "s"
	var calls []sample.Call
	for i, d := range []float64{0.1, 0.2, 0.5} {
		for s := 0.0; s+d <= 10; s += d {
			calls = append(calls, call(int32(i), s, s+d, sample.OK))
		}
	}
	calls = append(calls, call(3, 10, 10.5, sample.OK), call(3, 10.5, 10.9, sample.Timeout))
	r := mustCompute(t, time.Second, ts, calls)
	if len(r.Hosts) != 2 || len(r.Sites) != 1 || r.Summary.Hosts == nil || r.Summary.Hosts.Hosts != 2 || r.Summary.Hosts.Sites != 1 {
		t.Fatalf("hosts %d, sites %d, summary %+v", len(r.Hosts), len(r.Sites), r.Summary.Hosts)
	}
	x, y, s := r.Hosts[0], r.Hosts[1], r.Sites[0]
	if x.Name != "x" || x.RT.Median != r.Clients[0].Whole.MedianRTms || x.RT.P99 != r.Clients[0].Whole.P99RTms || x.RT.Mean != r.Clients[0].Whole.MeanRTms || x.OK != r.Clients[0].Whole.OK {
		t.Errorf("host x %+v: want tester 0's own figures", x)
	}
	if y.OK+x.OK != r.Summary.Samples.OK || y.Failed != 1 || y.Testers != 3 || y.PeakTesters != 2 {
		t.Errorf("host y: ok %d failed %d testers %d peak testers %d; run ok %d", y.OK, y.Failed, y.Testers, y.PeakTesters, r.Summary.Samples.OK)
	}
	if y.PeakOK != r.Clients[1].Peak.OK+r.Clients[2].Peak.OK || !near(y.Jain, jain([]int{r.Clients[1].Peak.OK, r.Clients[2].Peak.OK})) {
		t.Errorf("host y: peak ok %d, jain %v", y.PeakOK, y.Jain)
	}
	if s.OK != r.Summary.Samples.OK || s.Hosts != 2 || s.RT.N != r.Summary.Samples.OK || !near(s.JainHosts, jainOf([]float64{x.PerTester(), y.PerTester()})) {
		t.Errorf("site %+v", s)
	}
	if !near(r.Summary.Hosts.FairnessAcrossHosts, s.JainHosts) {
		t.Errorf("fairness across hosts %v, want the site's %v", r.Summary.Hosts.FairnessAcrossHosts, s.JainHosts)
	}
}
