package report

import (
	"math"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/monitor"
)

// serverResult is a run of 10 s with a node endpoint scraped every second
// from 2 s before its origin: CPU busy 25% of two CPUs, 1 GB more memory
// used each second, 1 MB/s in and 2 MB/s out, 100 + t processes; and a
// non-node endpoint the view ignores.
func serverResult() *analyze.Result {
	const origin = int64(1_700_000_000e9)
	r := &analyze.Result{Origin: origin, Summary: analyze.Summary{QuantumS: 1}}
	for i := range 10 {
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(i), Throughput: 1000})
	}
	for i := -2; i <= 10; i++ {
		t := origin + int64(i)*1e9 + 5e6
		s := float64(i + 2)
		pt := func(metric, labels string, v float64) monitor.Point {
			return monitor.Point{TimeNs: t, Endpoint: "node", Metric: metric, Labels: labels, Value: v}
		}
		r.Server = append(r.Server, pt(monitor.Up, "", 1),
			pt("node_cpu_seconds_total", `cpu="0",mode="idle"`, 0.5*s), pt("node_cpu_seconds_total", `cpu="0",mode="user"`, 0.5*s),
			pt("node_cpu_seconds_total", `cpu="1",mode="idle"`, s), pt("node_cpu_seconds_total", `cpu="1",mode="user"`, 0),
			pt("node_memory_MemTotal_bytes", "", 16e9), pt("node_memory_MemAvailable_bytes", "", 16e9-s*1e9),
			pt("node_network_receive_bytes_total", `device="lo"`, s*1e6), pt("node_network_transmit_bytes_total", `device="eth0"`, s*2e6),
			pt("node_processes_pids", "", 100+float64(i)),
			monitor.Point{TimeNs: t, Endpoint: "target", Metric: "diperf_target_served_total", Value: s * 1000})
	}
	return r
}

// The server view: the four panels, their values, on the timeline's axis.
func TestServerView(t *testing.T) {
	r := serverResult()
	v := ServerViewOf(r)
	if v == nil || len(v.Panels) != 4 {
		t.Fatalf("view %+v; want four panels", v)
	}
	want := map[string]struct {
		x0, y0 float64
		n      int
	}{
		idServerCPU: {-1.495, 25, 12}, idServerMemory: {-1.995, 0, 13}, idServerProcesses: {-1.995, 98, 13},
	}
	for _, p := range v.Panels {
		if len(p.Client.X) != 10 || p.Client.X[0] != 0.5 || p.Client.Y[0] != 1000 {
			t.Errorf("%s: client view %+v; want throughput at each quantum's middle", p.ID, p.Client)
		}
		w, ok := want[p.ID]
		if !ok {
			continue
		}
		s := p.Server[0]
		if len(s.X) != w.n || math.Abs(s.X[0]-w.x0) > 1e-9 || math.Abs(s.Y[0]-w.y0) > 1e-9 {
			t.Errorf("%s: %d points from (%v, %v); want %d from (%v, %v)", p.ID, len(s.X), s.X[0], s.Y[0], w.n, w.x0, w.y0)
		}
	}
	net := v.Panels[2]
	if len(net.Server) != 2 || net.Server[0].Y[3] != 1e6 || net.Server[1].Y[3] != 2e6 {
		t.Errorf("network %+v; want 1 MB/s in, 2 MB/s out", net.Server)
	}
	figs := serverFigures(r)
	if len(figs) != 4 || figs[0].File != "graph-k-server-cpu.svg" {
		t.Fatalf("figures %v", figs)
	}
	svg := string(figs[0].SVG)
	for _, s := range []string{"node: CPU utilization (left axis)", "throughput (client view) (right axis)", "server (%)"} {
		if !strings.Contains(svg, s) {
			t.Errorf("CPU graph lacks %q", s)
		}
	}
	if !strings.Contains(figs[0].Caption, "Figure k1") {
		t.Errorf("caption %q", figs[0].Caption)
	}
	r.Server = r.Server[:0]
	if ServerViewOf(r) != nil || len(serverFigures(r)) != 0 {
		t.Error("a server view without monitor data")
	}

}
