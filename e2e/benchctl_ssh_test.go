package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/test/netlab"
)

// bcsArgs is `diperf bench controller --transport ssh` against lab's
// hosts: perHost testers on each, clients null clients in each tester,
// rate calls/s in all for d.
func bcsArgs(lab *netlab.Lab, perHost, clients, rate int, d time.Duration) []string {
	return []string{"bench", "controller", "--transport", "ssh", "--ssh-hosts", strings.Join(sshNames(lab.Hosts), ","),
		"--identity-file", lab.KeyFile, "--known-hosts", lab.KnownHosts,
		"--testers-per-host", fmt.Sprint(perHost), "--clients-per-tester", fmt.Sprint(clients),
		"--rate", fmt.Sprint(rate), "--duration", d.String()}
}

// bcsJSON is the command's last stdout line, decoded.
func bcsJSON(tb testing.TB, stdout string) map[string]any {
	tb.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		tb.Fatalf("last line is not JSON: %v\n%s", err, stdout)
	}
	return got
}

// bcsCheck fails tb unless every sample the testers produced is stored,
// none lost, none fetched from a tester's spool at cleanup rather than
// over the live SSH streams, and no tester failed.
func bcsCheck(tb testing.TB, got map[string]any) {
	tb.Helper()
	sent, stored, received := got["sent"].(float64), got["stored"].(float64), got["received"].(float64)
	if sent == 0 || stored != sent || received != sent || got["lost"].(float64) != 0 {
		tb.Errorf("sent %v, received %v, stored %v, lost %v: want every sample sent stored", sent, received, stored, got["lost"])
	}
	if got["retrieved"].(float64) != 0 || got["failed_sessions"].(float64) != 0 {
		tb.Errorf("%v samples retrieved from spools at cleanup, %v testers failed (%v); want none",
			got["retrieved"], got["failed_sessions"], got["first_error"])
	}
}

// TestBenchControllerSSH runs `diperf bench controller --transport ssh`
// on 2 netlab hosts, two testers each with 50 null clients, 2,000
// calls/s in all for 3 s: every sample the testers produced is stored,
// none is lost, and the JSON line holds the TCP benchmark's figures and
// the run's shape.
func TestBenchControllerSSH(t *testing.T) {
	lab := netlab.New(t, netlab.Options{Hosts: 2, Prefix: "bcs"})
	r := diperf(t, 3*time.Minute, bcsArgs(lab, 2, 50, 2000, 3*time.Second)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	got := bcsJSON(t, r.stdout)
	for _, k := range []string{"sent", "received", "stored", "lost", "samples_per_s", "controller_rss_mb",
		"controller_cpu_s", "bytes_per_tester", "connect_s", "median_samples_per_s", "controller_send_cpu_s", "loop_samples_per_s", "run_s"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, r.stdout)
		}
	}
	bcsCheck(t, got)
	// 200 clients every 100 ms for 3 s: 6,000 calls; at least a quarter
	// of them on a busy 2-core machine, as in TestSSHBenchSmall.
	if s := got["sent"].(float64); s < 1500 || s > 6200 {
		t.Errorf("sent %v, want about 6,000 (1,500 at least)", s)
	}
	want := map[string]float64{"testers": 4, "hosts": 2, "testers_per_host": 2, "clients": 200, "client_interval_ms": 100}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if got["transport"] != "ssh" || got["controller_rss_mb"].(float64) <= 0 || got["controller_cpu_s"].(float64) <= 0 {
		t.Errorf("transport %v, controller RSS %v MB, CPU %v s", got["transport"], got["controller_rss_mb"], got["controller_cpu_s"])
	}
	t.Logf("%s", r.stdout)
	if !strings.Contains(r.stderr, "testers connected") {
		t.Errorf("no progress on stderr:\n%s", r.stderr)
	}
}

// TestBenchControllerSSHUsage refuses --transport ssh without hosts, or
// with a --testers that is not hosts × testers per host.
func TestBenchControllerSSHUsage(t *testing.T) {
	for args, want := range map[string]string{
		"":                                     "--ssh-hosts",
		"--ssh-hosts a,b --testers 3":          "--testers 3",
		"--ssh-hosts a --clients-per-tester 0": "must be positive",
	} {
		r := diperf(t, 30*time.Second, append([]string{"bench", "controller", "--transport", "ssh"}, strings.Fields(args)...)...)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, r.code, r.stderr, want)
		}
	}
}

// BenchmarkBenchControllerSSH is issue 11's SSH figure through the
// benchmark command: 10,000 null clients on netlab hosts at 100,000
// calls/s in all for 60 s, in two shapes (10 hosts × 1 tester × 1,000
// clients; 20 hosts × 5 testers × 100 clients). It logs the exact
// command and its JSON line, and fails if a sample is lost.
//
//	go test -run '^$' -bench BenchmarkBenchControllerSSH -benchtime 1x -timeout 30m ./e2e/
func BenchmarkBenchControllerSSH(b *testing.B) {
	for _, s := range []struct{ hosts, perHost, clients int }{{10, 1, 1000}, {20, 5, 100}} {
		b.Run(fmt.Sprintf("%dx%dx%d", s.hosts, s.perHost, s.clients), func(b *testing.B) {
			lab := netlab.New(b, netlab.Options{Hosts: s.hosts, Prefix: "bcsb"})
			args := bcsArgs(lab, s.perHost, s.clients, 100_000, time.Minute)
			for range b.N {
				cmd := exec.Command(bin, args...)
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("diperf %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				b.Logf("diperf %s\n%s", strings.Join(args, " "), out)
				got := bcsJSON(b, string(out))
				bcsCheck(b, got)
				for k, unit := range map[string]string{"samples_per_s": "samples/s", "median_samples_per_s": "median-samples/s",
					"lost": "lost", "controller_cpu_s": "controller-cpu-s", "controller_send_cpu_s": "controller-send-cpu-s", "controller_rss_mb": "controller-rss-MB", "sent": "samples"} {
					b.ReportMetric(got[k].(float64), unit)
				}
			}
		})
	}
}
