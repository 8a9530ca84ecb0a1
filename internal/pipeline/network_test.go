package pipeline

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
)

// clientsCSV writes res's clients.csv and reads it back by header: one
// map of column → cell per row.
func clientsCSV(t *testing.T, res *analyze.Result) []map[string]string {
	t.Helper()
	var b bytes.Buffer
	if err := analyze.WriteClients(&b, res.ClientRows()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// network.csv joins into clients.csv by host, through sensors.names:
// host a's sensor measured both ways, host b's only estimated one way,
// host c's absent (empty cells); a run without the sensors key has no
// net_* columns, and one whose directory never answered (no network.csv)
// has them empty.
func TestJoinNetwork(t *testing.T) {
	dir := t.TempDir()
	exp, err := experiment.Parse([]byte("name: t\nclient: {exec: [true]}\nsensors:\n  directory: http://d:1\n  token_file: tok\n  target: svc\n  names: {b: sensor-b}\n"), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	newRes := func() *analyze.Result {
		return &analyze.Result{Clients: []analyze.Client{{Index: 0, Host: "a"}, {Index: 1, Host: "b"}, {Index: 2, Host: "c"}, {Index: 3, Host: "a"}}}
	}
	d := &Dataset{Dir: dir, Experiment: exp}
	res := newRes()
	d.joinNetwork(res)
	for i, row := range clientsCSV(t, res) {
		if v, ok := row["net_bandwidth_bps"]; !ok || v != "" || row["net_estimated"] != "" {
			t.Errorf("row %d without network.csv: %v; want empty net_* columns", i, row)
		}
	}
	err = rundir.WriteNetwork(dir, []rundir.NetRow{
		{Src: "a", Dst: "svc", BandwidthBps: 9e8, LatencyMs: 0.5, MeasuredAt: at},
		{Src: "svc", Dst: "a", BandwidthBps: 8e8, LatencyMs: 0.6, MeasuredAt: at.Add(-time.Minute)},
		{Src: "sensor-b", Dst: "svc", BandwidthBps: 1e7, LatencyMs: 20, MeasuredAt: at, Estimated: true, Via: []string{"g"}},
		{Src: "svc", Dst: "zz", BandwidthBps: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	res = newRes()
	d.joinNetwork(res)
	want := []map[string]string{
		{"host": "a", "net_bandwidth_bps": "900000000", "net_bandwidth_from_target_bps": "800000000", "net_latency_ms": "0.5", "net_estimated": "false", "net_measured_at": "2026-11-23T06:00:00Z"},
		{"host": "b", "net_bandwidth_bps": "10000000", "net_bandwidth_from_target_bps": "", "net_latency_ms": "20", "net_estimated": "true", "net_measured_at": "2026-11-23T06:00:00Z"},
		{"host": "c", "net_bandwidth_bps": "", "net_bandwidth_from_target_bps": "", "net_latency_ms": "", "net_estimated": "", "net_measured_at": ""},
		{"host": "a", "net_bandwidth_bps": "900000000"},
	}
	got := clientsCSV(t, res)
	for i, w := range want {
		for k, v := range w {
			if got[i][k] != v {
				t.Errorf("row %d %s = %q, want %q", i, k, got[i][k], v)
			}
		}
	}
	d.Experiment, _ = experiment.Parse([]byte("name: t\nclient: {exec: [true]}\n"), "e.yaml")
	res = newRes()
	d.joinNetwork(res)
	if _, ok := clientsCSV(t, res)[0]["net_bandwidth_bps"]; ok {
		t.Error("a run without the sensors key has net_* columns")
	}
}

// A network.csv that cannot be read is said once on progress and leaves
// the columns empty: never a failed analysis.
func TestJoinNetworkUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rundir.Network), []byte("src,dst,bandwidth_bps\na,svc,fast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exp, err := experiment.Parse([]byte("name: t\nclient: {exec: [true]}\nsensors: {directory: \"http://d:1\", token_file: tok, target: svc}\n"), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	d := &Dataset{Dir: dir, Experiment: exp, progress: &progress}
	res := &analyze.Result{Clients: []analyze.Client{{Host: "a"}}}
	d.joinNetwork(res)
	if row := clientsCSV(t, res)[0]; row["net_bandwidth_bps"] != "" || !bytes.Contains(progress.Bytes(), []byte("network figures are left out")) {
		t.Errorf("row %v, progress %q", row, progress.String())
	}
}
