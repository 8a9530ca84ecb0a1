package report

import (
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/monitor"
)

// A command endpoint's counters (sdiag's jobs completed) are drawn as
// rates against the throughput; a gauge that falls, a labelled series and
// a whole page of series are not.
func TestServerViewCounters(t *testing.T) {
	const origin = int64(1_700_000_000e9)
	r := &analyze.Result{Origin: origin, Summary: analyze.Summary{QuantumS: 1}}
	for i := range 4 {
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(i), Throughput: 5})
		at := origin + int64(i)*1e9
		r.Server = append(r.Server, monitor.Point{TimeNs: at, Endpoint: "slurm", Metric: monitor.Up, Value: 1},
			monitor.Point{TimeNs: at, Endpoint: "slurm", Metric: "jobs_completed", Value: float64(5 * i)},
			monitor.Point{TimeNs: at, Endpoint: "slurm", Metric: "jobs_running", Value: float64(i % 2)})
		for j := range maxCounterSeries + 1 {
			r.Server = append(r.Server, monitor.Point{TimeNs: at, Endpoint: "page", Metric: "m" + itoa(j), Value: float64(i)})
		}
	}
	v := ServerViewOf(r)
	if v == nil || len(v.Panels) != 1 || v.Panels[0].ID != idServerCounters || len(v.Panels[0].Server) != 1 {
		t.Fatalf("view %+v; want the counter panel with slurm's jobs_completed alone", v)
	}
	l := v.Panels[0].Server[0]
	if l.Name != "slurm: jobs_completed" || len(l.Y) != 3 || l.Y[0] != 5 || l.X[0] != 0.5 {
		t.Errorf("counter line %+v; want 5 per s at the middle of each interval", l)
	}
	if figs := serverFigures(r); len(figs) != 1 {
		t.Errorf("%d server figures, want 1", len(figs))
	}
}
