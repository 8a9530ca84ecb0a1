package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/monitor"
)

// monitor.csv: written a scrape at a time, read back by header; a torn
// last line is left out; a missing file says so.
func TestMonitorLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := ReadMonitor(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no file: %v", err)
	}
	l, err := CreateMonitorLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := []monitor.Point{{TimeNs: 1, Endpoint: "node", Metric: "node_cpu_seconds_total", Labels: `cpu="0",mode="idle"`, Value: 1.5}}
	b := []monitor.Point{{TimeNs: 2, Endpoint: "node", Metric: "up", Value: 1}, {TimeNs: 2, Endpoint: "t", Metric: "x", Value: 3e9}}
	if err := l.Write(a); err != nil {
		t.Fatal(err)
	}
	// Flushed per scrape: readable before Close.
	if got, err := ReadMonitor(dir); err != nil || !reflect.DeepEqual(got, a) {
		t.Errorf("before close: %v, %v", got, err)
	}
	if err := l.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMonitor(dir)
	if want := append(a, b...); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("read %v, %v; want %v", got, err, want)
	}
	if _, err := CreateMonitorLog(dir); err == nil {
		t.Error("a second log over the first")
	}
	path := filepath.Join(dir, Monitor)
	data, _ := os.ReadFile(path)
	head := strings.SplitN(string(data), "\n", 2)[0]
	if head != "time_ns,endpoint,metric,labels,value" {
		t.Errorf("header %q", head)
	}
	os.WriteFile(path, append(data, []byte("3,node,up,,")...), 0o644)
	if got, err := ReadMonitor(dir); err != nil || len(got) != 3 {
		t.Errorf("torn last line: %d points, %v", len(got), err)
	}
	os.WriteFile(path, append(data, []byte("3,node,up,,x\n4,node,up,,1\n")...), 0o644)
	if _, err := ReadMonitor(dir); err == nil || !strings.Contains(err.Error(), "line 5") {
		t.Errorf("a bad line inside: %v", err)
	}
}
