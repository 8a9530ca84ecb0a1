package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// prometheusBin is Debian's Prometheus server (package prometheus).
const prometheusBin = "/usr/bin/prometheus"

// A real Prometheus server scrapes the controller's /metrics (beside the
// dashboard, with the run's token as a bearer credential) every second
// during a run: the scrapes succeed, the run's figures are there, and the
// last scrape (the dashboard lingers after the run) counts exactly the
// successful calls summary.json counts. promtool finds the exposition
// clean.
func TestPrometheusScrapesTheController(t *testing.T) {
	if _, err := os.Stat(prometheusBin); err != nil {
		t.Skipf("%s is absent (scripts/test.sh installs Debian's prometheus): %v", prometheusBin, err)
	}
	t.Parallel()
	dir := t.TempDir()
	tok := filepath.Join(dir, "ui.token")
	token := "e2e-prometheus-token-0123456789"
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ui := freeAddr(t)
	prom := startPrometheus(t, dir, ui, tok)
	target := startTarget(t, 8, 20*time.Millisecond)
	exp := writeExperiment(t, "name: prom\ntarget: "+target+"\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 5s\n"+
		"schedule:\n  testers: 3\n  tester_start_interval: 500ms\n  tester_duration: 8s\n  client_interval: 10ms\n")
	out := filepath.Join(dir, "run")
	checked := make(chan string, 1)
	go func() { checked <- promtoolDuringRun(ui, token) }()
	r := diperf(t, 2*time.Minute, "run", exp, "--out", out, "--ui", ui, "--ui-token-file", tok, "--ui-linger", "4s")
	if r.code != 0 {
		t.Fatalf("diperf run exited %d:\n%s", r.code, r.stderr)
	}
	if msg := <-checked; msg != "" {
		t.Error(msg)
	}
	s := readSummary(t, out)
	if v := promQuery(t, prom, `max_over_time(up{job="diperf"}[5m])`); v != 1 {
		t.Errorf("Prometheus never scraped the controller successfully (max up = %v)", v)
	}
	if v := promQuery(t, prom, `max_over_time(diperf_throughput_calls_per_second[5m])`); v < 0.5*s.Throughput.Max || v > 1.5*s.Throughput.Max {
		t.Errorf("the highest throughput Prometheus saw is %.1f calls/s; quanta.csv's is %.1f", v, s.Throughput.Max)
	}
	if v := promQuery(t, prom, `max_over_time(diperf_calls_total{class="ok"}[5m])`); int(v) != s.Samples.OK {
		t.Errorf("Prometheus's last count of successful calls is %v; summary.json says %d", v, s.Samples.OK)
	}
	if v := promQuery(t, prom, `max_over_time(diperf_testers{state="done"}[5m])`); v != 3 {
		t.Errorf("Prometheus saw at most %v testers done, want 3", v)
	}
}

// startPrometheus starts a Prometheus server on a free loopback port that
// scrapes ui's /metrics every second with the bearer token in tokFile, and
// returns its address once it is ready.
func startPrometheus(t *testing.T, dir, ui, tokFile string) string {
	t.Helper()
	addr := freeAddr(t)
	cfg := filepath.Join(dir, "prometheus.yml")
	body := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n"+
		"  - job_name: diperf\n    authorization:\n      type: Bearer\n      credentials_file: %s\n"+
		"    static_configs:\n      - targets: [%q]\n", tokFile, ui)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prometheusBin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+addr)
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); logf.Close() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("prometheus on %s not ready within 30 s:\n%s", addr, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// promQuery evaluates an instant PromQL query that yields one sample.
func promQuery(t *testing.T, addr, q string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	if r.Status != "success" || len(r.Data.Result) != 1 {
		t.Fatalf("query %s: status %s, %d results", q, r.Status, len(r.Data.Result))
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("query %s: value %q", q, s)
	}
	return v
}

// promtoolDuringRun fetches the controller's /metrics once the run is
// under way and has promtool check it; it returns what went wrong ("":
// clean).
func promtoolDuringRun(ui, token string) string {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		req, _ := http.NewRequest("GET", "http://"+ui+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("/metrics answered %s", resp.Status)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "promtool", "check", "metrics")
		cmd.Stdin = bytes.NewReader(b)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			return fmt.Sprintf("promtool check metrics: %v\n%s\nmetrics:\n%s", err, out, b)
		}
		return ""
	}
	return "the controller's /metrics never answered"
}
