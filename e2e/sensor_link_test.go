package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/report"
)

// linkToken is the mesh's token in TestRunWithSensors.
const linkToken = "an-e2e-link-token-of-enough-bytes"

// TestRunWithSensors runs the real directory and two real sensors on
// loopback, one named as this machine's host name (where the local
// testers run), one "svc" for the target, until the directory holds
// results of both kinds both ways; then a short run with the sensors key:
// clients.csv's net_* columns hold the figures the directory had at the
// run's end (network.csv keeps them), and the report has graph (j). A
// second run whose tester host maps to an unregistered sensor still
// succeeds, says which name is missing, and leaves the columns empty.
func TestRunWithSensors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tok"), []byte(linkToken), 0o600); err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	url, c := startMesh(t, dir, host, "svc")
	waitPair(t, c, host, "svc")
	target := startTarget(t, 4, 5*time.Millisecond)
	expBody := func(name, names string) string {
		return "name: " + name + "\ntarget: " + target + "\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 2s\n" +
			"schedule:\n  testers: 2\n  tester_start_interval: 0s\n  tester_duration: 2s\n" +
			"sensors:\n  directory: " + url + "\n  token_file: " + filepath.Join(dir, "tok") + "\n  target: svc\n" + names
	}
	exp := filepath.Join(dir, "link.yaml")
	if err := os.WriteFile(exp, []byte(expBody("link", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	if r := diperf(t, time.Minute, "run", exp, "--out", out); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	} else if strings.Contains(r.stderr, "sensors:") {
		t.Errorf("a run whose sensors are all there warns: %s", r.stderr)
	}
	rs, err := c.Results(context.Background(), directory.Query{})
	if err != nil {
		t.Fatal(err)
	}
	net := readCSV(t, filepath.Join(out, "network.csv"), "src", "dst", "bandwidth_bps", "latency_ms", "measured_at", "estimated", "via")
	if len(net.rows) != 2 {
		t.Fatalf("network.csv has %d rows, want %s → svc and back", len(net.rows), host)
	}
	cl := readCSV(t, filepath.Join(out, "clients.csv"), "host", "net_bandwidth_bps", "net_bandwidth_from_target_bps",
		"net_latency_ms", "net_estimated", "net_measured_at")
	for _, r := range cl.rows {
		bw, back, lat := r.float(t, "net_bandwidth_bps"), r.float(t, "net_bandwidth_from_target_bps"), r.float(t, "net_latency_ms")
		if r.str(t, "host") != host || r.str(t, "net_estimated") != "false" || r.str(t, "net_measured_at") == "" {
			t.Errorf("clients.csv line %d: host %q, estimated %q, measured at %q", r.line, r.str(t, "host"), r.str(t, "net_estimated"), r.str(t, "net_measured_at"))
		}
		checkFigure(t, rs, host, "svc", "bandwidth", bw)
		checkFigure(t, rs, "svc", host, "bandwidth", back)
		checkFigure(t, rs, host, "svc", "latency", lat)
	}
	page := reportGraph(t, out, report.NetworkGraphID)
	if !strings.Contains(page, "Figure j. Per tester host (1 with figures)") {
		t.Error("report.html has no caption of graph (j) for one host")
	}
	checkHostView(t, out, host, "A", true) // sensor_site_test.go

	if err := os.WriteFile(exp, []byte(expBody("unregistered", "  names: {"+host+": nobody}\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("a run with an unregistered sensor name: exit %d\n%s", r.code, r.stderr)
	}
	t.Logf("the notes of a run with an unregistered sensor:\n%s", grepLines(r.stderr, "sensors:"))
	if n := strings.Count(r.stderr, "no live sensor named nobody (tester host "+host+")"); n != 2 {
		t.Errorf("stderr names the missing sensor %d times, want at the start and at the end:\n%s", n, r.stderr)
	}
	for _, row := range readCSV(t, filepath.Join(out, "clients.csv"), "net_bandwidth_bps", "net_latency_ms").rows {
		if row.str(t, "net_bandwidth_bps") != "" || row.str(t, "net_latency_ms") != "" {
			t.Errorf("clients.csv line %d has figures for an unregistered sensor", row.line)
		}
	}
	if _, err := os.Stat(filepath.Join(out, report.NetworkGraphID+".svg")); err == nil {
		t.Error("a run without network figures has graph (j)")
	}
	checkHostView(t, out, host, "", false)
}

// checkFigure fails unless v is the figure of a result src → dst of kind
// in rs (bandwidth in whole bit/s, as network.csv keeps it).
func checkFigure(t *testing.T, rs []directory.Result, src, dst, kind string, v float64) {
	t.Helper()
	var seen []string
	for _, r := range rs {
		if r.Src != src || r.Dst != dst || r.Kind != kind {
			continue
		}
		want := r.LatencyMs
		if kind == "bandwidth" {
			want = math.Round(r.BandwidthBps)
		}
		if v == want {
			return
		}
		seen = append(seen, strconv.FormatFloat(want, 'g', -1, 64))
	}
	t.Errorf("clients.csv has %s %s → %s = %v, which the directory never held (it has %v)", kind, src, dst, v, seen)
}

// startMesh starts the directory and one sensor per name (one site, all
// global), on loopback with a short period; it returns the directory's
// URL and a client of it.
func startMesh(t *testing.T, dir string, names ...string) (string, *directory.Client) {
	t.Helper()
	addr := freeAddr(t)
	token := filepath.Join(dir, "tok")
	d := exec.Command(bin, "directory", "--listen", addr, "--db", filepath.Join(dir, "dir.db"), "--token-file", token)
	d.Stderr = &lockedBuffer{}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Kill(); d.Wait() })
	url := "http://" + addr
	c, err := directory.NewClient(url, []byte(linkToken), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitUp(t, c)
	for _, n := range names {
		s := exec.Command(bin, "sensor", "--directory", url, "--token-file", token, "--listen", freeAddr(t),
			"--name", n, "--site", "A", "--groups", "local", "--period", "300ms", "--test-time", "150ms")
		s.Stderr = &lockedBuffer{}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Process.Kill(); s.Wait() })
	}
	return url, c
}

// waitPair waits until the directory holds bandwidth and latency results
// of a → b and b → a.
func waitPair(t *testing.T, c *directory.Client, a, b string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		rs, err := c.Results(context.Background(), directory.Query{Latest: true})
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, r := range rs {
			have[fmt.Sprintf("%s>%s/%s", r.Src, r.Dst, r.Kind)] = true
		}
		if have[a+">"+b+"/bandwidth"] && have[b+">"+a+"/bandwidth"] && have[a+">"+b+"/latency"] && have[b+">"+a+"/latency"] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no results both ways between %s and %s within 15 s: %v", a, b, have)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// grepLines returns the lines of s that hold sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
