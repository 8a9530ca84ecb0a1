package report

import (
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/monitor"
)

// A run whose only server record is a log endpoint's still has a server
// view: its matching lines per second against the throughput; with a
// node endpoint too, the log graph comes after the node's four.
func TestServerViewLog(t *testing.T) {
	const origin = int64(1_700_000_000e9)
	r := &analyze.Result{Origin: origin, Summary: analyze.Summary{QuantumS: 1}}
	for i := range 4 {
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(i), Throughput: 300})
		at := origin + int64(i)*1e9
		r.Server = append(r.Server, monitor.Point{TimeNs: at, Endpoint: "web", Metric: monitor.Up, Value: 1},
			monitor.Point{TimeNs: at, Endpoint: "web", Metric: monitor.LogLines, Value: float64(300 * i)})
	}
	v := ServerViewOf(r)
	if v == nil || len(v.Panels) != 1 || v.Panels[0].ID != idServerLog {
		t.Fatalf("view %+v; want the log panel alone", v)
	}
	l := v.Panels[0].Server[0]
	if len(l.Y) != 3 || l.Y[0] != 300 || l.X[0] != 0.5 || l.Unit != "lines/s" {
		t.Errorf("log line %+v; want 300 lines/s at the middle of each interval", l)
	}
	r.Server = append(r.Server, serverResult().Server...)
	if v := ServerViewOf(r); len(v.Panels) != 5 || v.Panels[4].ID != idServerLog {
		t.Errorf("with a node endpoint: %d panels, want the four and the log's last", len(v.Panels))
	}
	if figs := serverFigures(r); len(figs) != 5 {
		t.Errorf("%d server figures, want 5", len(figs))
	}
}
