package bench

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// NullRun names the hidden subcommand `diperf bench controller-run`,
// which ControllerSSH runs as its controller: `diperf run` (the same
// flags, the same run) whose testers run the null client
// (protocol.ClientNull: each call returns OK at once) instead of the
// experiment's client, so that `diperf bench controller --transport ssh`
// drives real testers on remote hosts without a service behind them.
// Neither an experiment file nor `diperf run` can ask for the null
// client.
const NullRun = "controller-run"

// NullRunSays is what NullRun writes to its stderr before the run, so
// that a run never measures the null client silently.
const NullRunSays = "the testers run the null client (a benchmark instrument), not the experiment's client"

// SSHOptions configure the controller benchmark over SSH: real testers
// (the diperf binary, deployed by the ssh testbed) on Hosts, running the
// null client, driven by a `diperf bench controller-run` child.
type SSHOptions struct {
	// ControllerOptions gives Rate (all clients together), Duration,
	// Mode, Exe, Dir, Keep and CPUProfile; its Testers is
	// len(Hosts)×TestersPerHost.
	ControllerOptions
	Hosts            []string // [user@]host[:port] of each host
	IdentityFile     string   // private key ("" = the ssh agent, then ~/.ssh/id_*)
	KnownHosts       string   // known_hosts file ("" = ~/.ssh/known_hosts)
	TestersPerHost   int      // testers started on each host
	ClientsPerTester int      // client loops in each tester
}

// Clients is how many client loops the run has.
func (o SSHOptions) Clients() int { return len(o.Hosts) * o.TestersPerHost * o.ClientsPerTester }

// Interval is each client's time between calls: the clients together
// make o.Rate calls per second.
func (o SSHOptions) Interval() time.Duration {
	return time.Duration(float64(o.Clients()) / o.Rate * float64(time.Second))
}

// SSHResult is the JSON line of `diperf bench controller --transport
// ssh`: the TCP benchmark's fields (sent and received from testers.csv,
// stored the rows of samples.parquet, lost = sent − stored) and the SSH
// run's own.
type SSHResult struct {
	*ControllerResult
	Hosts            int     `json:"hosts"`
	TestersPerHost   int     `json:"testers_per_host"`
	ClientsPerTester int     `json:"clients_per_tester"`
	Clients          int     `json:"clients"`
	ClientIntervalMs float64 `json:"client_interval_ms"`
	// LoopS is from the first tester's start to the last one's end;
	// LoopSamplesPerS is received / LoopS.
	LoopS           float64 `json:"loop_s"`
	LoopSamplesPerS float64 `json:"loop_samples_per_s"`
	// MedianSamplesPerS is the summary's median throughput over its
	// quanta: the steady rate.
	MedianSamplesPerS float64 `json:"median_samples_per_s"`
	// Retrieved is how many samples came from the testers' spools at
	// cleanup instead of over the live SSH streams.
	Retrieved uint64 `json:"retrieved"`
	// SendCPUS is the controller's CPU time from the synchronized start
	// to the last tester's end: the samples' cost alone, without the
	// deployment before or the analysis after.
	SendCPUS float64 `json:"controller_send_cpu_s"`
	// RunS is the child's whole life: deployment, connection, the run,
	// the cleanup of the hosts and the analysis.
	RunS float64 `json:"run_s"`
}

// ControllerSSH runs `diperf bench controller-run` (NullRun) of an
// ssh-testbed experiment on o.Hosts with the null client at o.Rate
// calls/s in total for o.Duration, and measures what the controller received, stored, and what it cost.
func ControllerSSH(ctx context.Context, o SSHOptions, progress io.Writer) (*SSHResult, error) {
	o.Testers = len(o.Hosts) * o.TestersPerHost
	o.Transport = "ssh"
	r := &SSHResult{ControllerResult: &ControllerResult{Bench: "controller", Transport: "ssh", Mode: cmp.Or(o.Mode, "disk"),
		Testers: o.Testers, Rate: o.Rate, DurationS: o.Duration.Seconds()},
		Hosts: len(o.Hosts), TestersPerHost: o.TestersPerHost, ClientsPerTester: o.ClientsPerTester, Clients: o.Clients(),
		ClientIntervalMs: round(float64(o.Interval())/float64(time.Millisecond), 3)}
	var t0 time.Time
	o.command = []string{"bench", NullRun}
	err := withController(o.ControllerOptions, &r.Dir, func(dir string) (args, env []string, err error) {
		t0 = time.Now()
		return nil, nil, os.WriteFile(filepath.Join(dir, "experiment.yaml"), []byte(sshExperiment(o)), 0o644)
	}, func(ch *child, _ string) error {
		if err := ch.watchSSH(ctx, o, r, t0, progress); err != nil {
			return err
		}
		if err := ch.wait(); err != nil {
			return err
		}
		if log, _ := os.ReadFile(ch.log); !bytes.Contains(log, []byte(NullRunSays)) {
			return fmt.Errorf("bench: the controller (%s %s) did not say it ran the null client", o.Exe, "bench "+NullRun)
		}
		r.RunS = round(time.Since(t0).Seconds(), 2)
		return fillSSH(r, ch)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// sshExperiment is the run's experiment: the client given is replaced by
// the null client (NullRun).
func sshExperiment(o SSHOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: bench-controller-ssh\nclient: {exec: [\"true\"], timeout: 10s}\n")
	fmt.Fprintf(&b, "testbed:\n  provider: ssh\n  hosts: [%s]\n  testers_per_host: %d\n  connect_timeout: 20s\n",
		strings.Join(quoteAll(o.Hosts), ", "), o.TestersPerHost)
	if o.IdentityFile != "" {
		fmt.Fprintf(&b, "  identity_file: %q\n", o.IdentityFile)
	}
	if o.KnownHosts != "" {
		fmt.Fprintf(&b, "  known_hosts: %q\n", o.KnownHosts)
	}
	fmt.Fprintf(&b, "schedule:\n  testers: %d\n  synchronized_start: true\n  tester_start_interval: 0s\n", o.Testers)
	fmt.Fprintf(&b, "  tester_duration: %s\n  clients_per_tester: %d\n  client_interval: %s\n",
		o.Duration, o.ClientsPerTester, o.Interval())
	fmt.Fprintf(&b, "controller: {mode: %q}\n", cmp.Or(o.Mode, "disk"))
	return b.String()
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
