package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/test/netlab"
)

// selLab is the known answer of issue 25: six hosts in three sites, each
// host's uplink (its eth0's egress: toward the target) capped by tc tbf
// at a known rate, each site's link delayed in user space. With
// min_bandwidth 7 Mbit/s, B's and C's second hosts are left out; with
// spread: site, the three chosen are one per site, A's 24, B's 20 and C's
// 12 Mbit/s in that order, and A's 16 is not needed (spread: host would
// have taken it before C's 12).
var selLab = []struct {
	site  string
	rate  int64 // bit/s
	delay time.Duration
}{
	{"A", 24e6, 2 * time.Millisecond}, {"A", 16e6, 2 * time.Millisecond},
	{"B", 20e6, 4 * time.Millisecond}, {"B", 4e6, 4 * time.Millisecond},
	{"C", 12e6, 6 * time.Millisecond}, {"C", 2e6, 6 * time.Millisecond},
}

// selBody is what each call uploads: big enough that a host's cap bounds
// its calls per second.
const selBody = 64 << 10

// TestSelectNetlab (issue 25, row 6): the real directory and a real
// sensor on each host and on the target's side measure the capped
// uplinks; testbed.select {testers: 3, min_bandwidth: 7Mbit/s, spread:
// site} over the ssh testbed must choose exactly the hosts the caps
// allow, one per site first, in the order of their caps, and say why
// each of the others was left out; the run from the chosen testers, each call
// uploading 64 KiB, shows per-host throughput in the order of the caps,
// none above what its cap lets through. About 20 s, needs root.
func TestSelectNetlab(t *testing.T) {
	lab := netlab.New(t, netlab.Options{Hosts: len(selLab), Prefix: "sel"})
	dir := t.TempDir()
	tok := filepath.Join(dir, "tok")
	if err := os.WriteFile(tok, []byte(linkToken), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, h := range lab.Hosts {
		selCap(t, h, selLab[i].rate)
		if err := h.SetDelay(selLab[i].delay); err != nil {
			t.Fatal(err)
		}
	}
	url := selMesh(t, lab, dir)
	target := selServe(t, lab.BridgeAddr)
	if err := os.WriteFile(filepath.Join(dir, "body"), make([]byte, selBody), 0o644); err != nil {
		t.Fatal(err)
	}
	exp := fmt.Sprintf(selExperiment, target, strings.Join(sshNames(lab.Hosts), ", "), lab.KeyFile, lab.KnownHosts, url, tok, selNames(lab))
	if err := os.WriteFile(filepath.Join(dir, "exp.yaml"), []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	r := sshRun(t, dir, out)
	t.Logf("selection:\n%s", grepLines(r.stderr, "select:"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	want := []string{"root@" + lab.Hosts[0].Addr, "root@" + lab.Hosts[2].Addr, "root@" + lab.Hosts[4].Addr}
	selCheckChoice(t, out, lab, want)
	selCheckThroughput(t, out, lab)
}

// selExperiment: the target, the hosts, identity, known hosts, the
// directory, its token file and the sensors' names.
const selExperiment = `name: sel-lab
target: %s
client:
  http: {url: "$DIPERF_TARGET", method: POST, body_file: body}
  timeout: 10s
testbed:
  provider: ssh
  hosts: [%s]
  identity_file: %s
  known_hosts: %s
  connect_timeout: 10s
  select: {testers: 3, min_bandwidth: 7Mbit/s, spread: site, probe: false}
schedule:
  testers: 3
  tester_start_interval: 0s
  tester_duration: 4s
  clients_per_tester: 4
  client_interval: 0s
sensors:
  directory: %s
  token_file: %s
  target: svc
  names: {%s}
`

// selNames maps each host of the ssh testbed to its sensor, h0 to h5.
func selNames(lab *netlab.Lab) string {
	var out []string
	for i, h := range lab.Hosts {
		out = append(out, fmt.Sprintf("\"root@%s\": h%d", h.Addr, i))
	}
	return strings.Join(out, ", ")
}

// selCap caps h's uplink, its eth0's egress, at rate (tc tbf, 10 ms of
// burst as netlab's SetRate): only the direction toward the target, so
// that the ssh testbed's upload of the diperf binary to the host is not.
func selCap(t *testing.T, h *netlab.Host, rate int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	burst := max(rate/8/100, 16<<10)
	if _, err := h.Run(ctx, "tc", "qdisc", "replace", "dev", "eth0", "root", "tbf", "rate", fmt.Sprintf("%dbit", rate),
		"burst", fmt.Sprint(burst), "latency", "100ms"); err != nil {
		t.Fatal(err)
	}
}

// selMesh starts the directory and the target's sensor on the root side
// of the bridge and a sensor in each host (its site; a group of its own
// shared with the target's sensor alone, so that the hosts test the
// target and not each other), waits until the directory holds every
// host's bandwidth toward the target, then stops the hosts' sensors, so
// that their tests do not share the uplinks with the run (their
// registrations stay live for minutes, their results stay).
func selMesh(t *testing.T, lab *netlab.Lab, dir string) string {
	t.Helper()
	tok := filepath.Join(dir, "tok")
	addr := freeAddrOn(t, lab.BridgeAddr)
	selStart(t, exec.Command(bin, "directory", "--listen", addr, "--db", filepath.Join(dir, "dir.db"), "--token-file", tok))
	url := "http://" + addr
	c, err := directory.NewClient(url, []byte(linkToken), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitUp(t, c)
	fast := []string{"--directory", url, "--token-file", tok, "--period", "400ms", "--test-time", "250ms", "--budget", "1"}
	groups := make([]string, len(lab.Hosts))
	for i := range lab.Hosts {
		groups[i] = fmt.Sprintf("g%d", i)
	}
	// The target's sensor serves the hosts' tests; its own, of the hosts,
	// come rarely (a long period), so that it is seldom busy with them.
	selStart(t, exec.Command(bin, "sensor", "--listen", freeAddrOn(t, lab.BridgeAddr), "--name", "svc", "--site", "T",
		"--groups", strings.Join(groups, ","), "--directory", url, "--token-file", tok, "--period", "1m", "--test-time", "250ms", "--budget", "1"))
	var hosts []*exec.Cmd
	for i, h := range lab.Hosts {
		hosts = append(hosts, selStart(t, exec.Command("ip", append([]string{"netns", "exec", h.Name, bin, "sensor",
			"--listen", h.Addr + ":7655", "--name", fmt.Sprintf("h%d", i), "--site", selLab[i].site, "--groups", groups[i]}, fast...)...)))
	}
	selWaitBandwidths(t, c, len(lab.Hosts))
	for _, s := range hosts {
		_ = s.Process.Kill()
		_ = s.Wait()
	}
	return url
}

// selStart starts cmd, killed (by its pid) when the test ends.
func selStart(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	cmd.Stderr = &lockedBuffer{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// selWaitBandwidths waits until the directory holds a bandwidth of each
// host's sensor toward svc.
func selWaitBandwidths(t *testing.T, c *directory.Client, n int) {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		rs, err := c.Results(context.Background(), directory.Query{Latest: true})
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]float64{}
		for _, r := range rs {
			if r.Dst == "svc" && r.Kind == "bandwidth" {
				have[r.Src] = r.BandwidthBps
			}
		}
		if len(have) == n {
			t.Logf("the mesh measured toward the target (bit/s): %v", have)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the directory has bandwidths toward svc of %d hosts of %d after 40 s: %v", len(have), n, have)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// freeAddrOn is a free TCP address on ip.
func freeAddrOn(t *testing.T, ip string) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// selServe serves HTTP on ip: each call's body is read to its end and
// answered with "ok". It returns the URL.
func selServe(t *testing.T, ip string) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// selCheckChoice checks selection.csv, the events and testers.csv: want
// chosen in order, every other host left out for its bandwidth.
func selCheckChoice(t *testing.T, out string, lab *netlab.Lab, want []string) {
	t.Helper()
	sel := readCSV(t, filepath.Join(out, "selection.csv"), "order", "host", "site", "chosen", "reason", "bandwidth_bps", "idle_cpu_pct")
	var chosen []string
	for _, r := range sel.rows {
		if cpu := r.float(t, "idle_cpu_pct"); cpu < 0 || cpu > 100 { // read over the host's SSH connection
			t.Errorf("%s: idle CPU %v%%", r.str(t, "host"), cpu)
		}
		if r.str(t, "chosen") == "true" {
			chosen = append(chosen, r.str(t, "host"))
			continue
		}
		want := "< min 7 Mbit/s"
		if r.str(t, "site") == "A" {
			want = "not needed: 3 chosen; site A already covered by root@" + lab.Hosts[0].Addr
		}
		if !strings.Contains(r.str(t, "reason"), want) {
			t.Errorf("%s left out for %q, want %q", r.str(t, "host"), r.str(t, "reason"), want)
		}
	}
	if !slices.Equal(chosen, want) || len(sel.rows) != 6 {
		t.Errorf("chose %v of %d candidates, want %v of 6", chosen, len(sel.rows), want)
	}
	if n, m := len(sshEvents(t, out, "host-chosen")), len(sshEvents(t, out, "host-left-out")); n != 3 || m != 3 {
		t.Errorf("%d host-chosen and %d host-left-out events, want 3 and 3", n, m)
	}
	for _, r := range readCSV(t, filepath.Join(out, "testers.csv"), "chosen").rows {
		if !strings.HasPrefix(r.str(t, "chosen"), "chosen ") {
			t.Errorf("testers.csv line %d: chosen %q", r.line, r.str(t, "chosen"))
		}
	}
}

// selCheckThroughput checks clients.csv: the calls per second of each
// chosen host (site A's, B's, C's) fall in the order of their caps, and
// none beyond what its cap lets through over its testers' time (its rate
// and one burst, over the body's bits).
func selCheckThroughput(t *testing.T, out string, lab *netlab.Lab) {
	t.Helper()
	calls, secs := map[string]float64{}, map[string]float64{}
	for _, r := range readCSV(t, filepath.Join(out, "clients.csv"), "host", "ok", "start_s", "end_s").rows {
		s := r.float(t, "end_s") - r.float(t, "start_s")
		if s <= 0 {
			t.Fatalf("clients.csv line %d: %v s", r.line, s)
		}
		calls[r.str(t, "host")] += r.float(t, "ok")
		secs[r.str(t, "host")] = max(secs[r.str(t, "host")], s)
	}
	var got []float64
	for _, i := range []int{0, 2, 4} {
		h, rate := lab.Hosts[i], float64(selLab[i].rate)
		var v, most float64
		for host := range calls {
			if strings.Contains(host, h.Addr) || strings.Contains(host, h.Name) {
				burst := float64(max(selLab[i].rate/8/100, 16<<10)) * 8
				v, most = calls[host]/secs[host], (rate+burst/secs[host])/(selBody*8)
			}
		}
		t.Logf("%s (cap %g Mbit/s): %.1f calls/s (the cap lets through at most %.1f)", h.Name, rate/1e6, v, most)
		if v <= 0 || v > most*1.02 {
			t.Errorf("%s: %.1f calls/s, want above 0 and at most %.1f", h.Name, v, most)
		}
		got = append(got, v)
	}
	if !(got[0] > got[1] && got[1] > got[2]) {
		t.Errorf("calls/s per host %v are not in the order of the caps 24 > 20 > 12 Mbit/s (clients.csv: %v calls)", got, calls)
	}
}
