package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/test/peers"
)

// startProcess starts argv and waits until addr accepts connections; it
// is killed when the test ends.
func startProcess(t *testing.T, addr string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never listened on %s", argv[0], addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// validateLine is validate's summary line.
var validateLine = regexp.MustCompile(`intervals compared: (\d+) .*max ([0-9.]+)%, median ([0-9.]+)%`)

// runValidate runs diperf validate on out and returns intervals compared
// and the max and median |difference| %.
func runValidate(t *testing.T, out string, args ...string) (int, float64, float64) {
	t.Helper()
	r := diperf(t, time.Minute, append([]string{"validate", out}, args...)...)
	t.Logf("diperf validate %s %s: exit %d\n%s%s", out, strings.Join(args, " "), r.code, r.stdout, r.stderr)
	m := validateLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no summary line in validate's output")
	}
	if r.code != 0 {
		t.Errorf("validate exit %d, want 0 (every interval within 1%%)", r.code)
	}
	n, _ := strconv.Atoi(m[1])
	mx, _ := strconv.ParseFloat(m[2], 64)
	med, _ := strconv.ParseFloat(m[3], 64)
	return n, mx, med
}

// A run against `diperf target` with monitor: on the target's /metrics and
// on a real node_exporter: monitor.csv holds both on the run's timeline,
// the report draws the server view, and the target's served counter
// matches the clients' successful calls within 1% per quantum.
func TestMonitorTargetAndNodeExporter(t *testing.T) {
	if _, err := exec.LookPath("prometheus-node-exporter"); err != nil {
		t.Skip("prometheus-node-exporter not installed (scripts/test.sh installs it)")
	}
	url := startTarget(t, 64, time.Millisecond)
	node := freeAddr(t)
	startProcess(t, node, "prometheus-node-exporter", "--web.listen-address="+node)
	exp := writeExperiment(t, fmt.Sprintf(`name: monitored
target: %s
client:
  http: {url: "$DIPERF_TARGET"}
schedule:
  testers: 4
  tester_start_interval: 250ms
  tester_duration: 6s
  client_interval: 0s
monitor:
  - name: node
    url: http://%s/metrics
  - name: target
    url: %smetrics
`, url, node, url))
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, 2*time.Minute, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s := readSummary(t, out)
	tab := readCSV(t, filepath.Join(out, "monitor.csv"), "time_ns", "endpoint", "metric", "labels", "value")
	seen := map[string]int{}
	for _, row := range tab.rows {
		ns := int64(row.float(t, "time_ns"))
		if rel := float64(ns-s.OriginNs) / 1e9; rel < -30 || rel > 30 {
			t.Fatalf("a scrape %.1f s from the run's origin: not on its timeline", rel)
		}
		seen[row.str(t, "endpoint")+" "+row.str(t, "metric")]++
	}
	for _, k := range []string{"node node_cpu_seconds_total", "node node_memory_MemAvailable_bytes", "node node_network_receive_bytes_total",
		"target diperf_target_served_total", "node up", "target up"} {
		if seen[k] == 0 {
			t.Errorf("monitor.csv has no %s (has %v)", k, seen)
		}
	}
	if seen["target up"] < 6 {
		t.Errorf("%d scrapes of the target in a run of about 7 s at 1 s", seen["target up"])
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"graph-k-server-cpu", "graph-k-server-memory", "graph-k-server-network", "graph-k-server-processes"} {
		if !strings.Contains(string(html), id) {
			t.Errorf("report.html lacks %s", id)
		}
		if _, err := os.Stat(filepath.Join(out, id+".svg")); err != nil {
			t.Errorf("no %s.svg: %v", id, err)
		}
	}
	n, mx, med := runValidate(t, out, "--counter", "diperf_target_served_total")
	t.Logf("target: %d calls ok; %d intervals compared, max |difference| %.3f%%, median %.3f%%", s.Samples.OK, n, mx, med)
	if n < 4 || mx > 1 {
		t.Errorf("%d intervals compared, max %.3f%%; want at least 4, all within 1%%", n, mx)
	}
	// At 0% a window is allowed only the calls near its boundaries: it
	// exits 3 exactly when a window or the cumulative gap is marked beyond.
	if r := diperf(t, time.Minute, "validate", out, "--counter", "diperf_target_served_total", "--tolerance", "0%"); (r.code == 3) != strings.Contains(r.stdout, "BEYOND") || (r.code != 0 && r.code != 3) {
		t.Errorf("validate --tolerance 0%%: exit %d, want 3 exactly when a row is BEYOND\n%s", r.code, r.stdout)
	}
}

// An nginx-served experiment with the built-in http client: nginx's own
// request counter (stub_status) matches the clients' successful calls
// within 1% per quantum, each scrape's own request taken off.
func TestMonitorNginxStubStatus(t *testing.T) {
	ng, err := peers.StartNginx(context.Background(), peers.NginxOptions{StubStatus: true})
	if errors.Is(err, peers.ErrNotInstalled) {
		t.Skip("nginx not installed (scripts/test.sh installs it)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ng.Stop)
	if resp, err := http.Get(ng.Status); err != nil || resp.StatusCode != 200 {
		t.Fatalf("nginx stub_status: %v %v", resp, err)
	}
	exp := writeExperiment(t, fmt.Sprintf(`name: nginx-monitored
client:
  http: {url: %[1]q}
schedule:
  testers: 4
  tester_start_interval: 250ms
  tester_duration: 6s
  client_interval: 0s
monitor:
  - name: nginx
    url: %[2]s
    format: stub_status
`, ng.URL, ng.Status))
	out := filepath.Join(t.TempDir(), "run")
	if r := diperf(t, 2*time.Minute, "run", exp, "--out", out); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s := readSummary(t, out)
	n, mx, med := runValidate(t, out, "--counter", "nginx_http_requests_total")
	t.Logf("nginx: %d calls ok; %d intervals compared, max |difference| %.3f%%, median %.3f%%", s.Samples.OK, n, mx, med)
	if n < 4 || mx > 1 {
		t.Errorf("%d intervals compared, max %.3f%%; want at least 4, all within 1%%", n, mx)
	}
}

// diperf monitor serves this host's figures: promtool finds nothing in
// its page that it does not find in node_exporter's own (whose memory
// metrics' camelCase names it lints), and it stops on SIGTERM.
func TestDiperfMonitorPromtool(t *testing.T) {
	if _, err := exec.LookPath("promtool"); err != nil {
		t.Skip("promtool not installed (scripts/test.sh installs prometheus)")
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "monitor", "--listen", addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	var page []byte
	for {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			page = make([]byte, 0, 1<<16)
			buf := make([]byte, 1<<16)
			for {
				n, err := resp.Body.Read(buf)
				page = append(page, buf[:n]...)
				if err != nil {
					break
				}
			}
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("diperf monitor never served")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, m := range []string{"node_cpu_seconds_total{", "node_memory_MemAvailable_bytes ", "node_network_receive_bytes_total{device=\"lo\"}",
		"node_processes_pids ", "node_procs_running ", "node_load1 "} {
		if !strings.Contains(string(page), m) {
			t.Errorf("page lacks %s", m)
		}
	}
	check := exec.Command("promtool", "check", "metrics")
	check.Stdin = strings.NewReader(string(page))
	lint, _ := check.CombinedOutput()
	allowed := "node_memory_MemAvailable_bytes metric names should be written in 'snake_case' not 'camelCase'\n" +
		"node_memory_MemTotal_bytes metric names should be written in 'snake_case' not 'camelCase'\n"
	for _, l := range strings.Split(strings.TrimSpace(string(lint)), "\n") {
		if l != "" && !strings.Contains(allowed, l+"\n") {
			t.Errorf("promtool check metrics: %s", l)
		}
	}
	t.Logf("promtool check metrics on diperf monitor's page:\n%s", lint)
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("diperf monitor after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Error("diperf monitor did not stop on SIGTERM")
	}
}

// The demo scrapes its own target's counters: its client view agrees with
// the target's served counter within 1% in every interval of 100 calls or
// more (the figure), and the report draws the server view.
func TestDemoValidatesAgainstItsTarget(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "demo")
	r := diperf(t, 2*time.Minute, "demo", "--testers", "4", "--tester-duration", "6s", "--tester-start-interval", "250ms",
		"--workers", "64", "--service-time", "2ms", "--client", "http", "--out", out, "--ui", "off")
	if r.code != 0 {
		t.Fatalf("demo exited %d:\n%s", r.code, r.stderr)
	}
	n, maxPct, _ := runValidate(t, out, "--counter", "diperf_target_served_total")
	if n < 5 || maxPct > 1 {
		t.Errorf("%d intervals compared, max |difference| %.3f%%: want ≥ 5 within 1%%", n, maxPct)
	}
}
