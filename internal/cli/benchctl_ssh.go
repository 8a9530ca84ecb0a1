package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// sshBenchFlags are `diperf bench controller`'s flags for --transport ssh.
type sshBenchFlags struct {
	hosts                   string
	identity, knownHosts    string
	perHost, clientsPerTest int
}

// add defines the flags on fs.
func (f *sshBenchFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.hosts, "ssh-hosts", "", "with --transport ssh: the hosts to run testers on, comma-separated [user@]host[:port]")
	fs.StringVar(&f.identity, "identity-file", "", "with --transport ssh: the private key (default the ssh agent, then ~/.ssh/id_*)")
	fs.StringVar(&f.knownHosts, "known-hosts", "", "with --transport ssh: the known_hosts file (default ~/.ssh/known_hosts)")
	fs.IntVar(&f.perHost, "testers-per-host", 1, "with --transport ssh: testers started on each host")
	fs.IntVar(&f.clientsPerTest, "clients-per-tester", 1000, "with --transport ssh: null clients in each tester; each calls every (all clients / --rate) seconds")
}

// benchControllerSSH is `diperf bench controller --transport ssh`: a
// `diperf run` child drives real testers on the given hosts over the ssh
// testbed, with the null client, and the same JSON line as over tcp ends
// it. given says which flags the command line set.
func benchControllerSSH(ctx context.Context, e *env, o bench.ControllerOptions, f sshBenchFlags, given map[string]bool) error {
	so := bench.SSHOptions{ControllerOptions: o, IdentityFile: f.identity, KnownHosts: f.knownHosts,
		TestersPerHost: f.perHost, ClientsPerTester: f.clientsPerTest}
	for h := range strings.SplitSeq(f.hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			so.Hosts = append(so.Hosts, h)
		}
	}
	if err := checkSSHBench(so, given); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	so.Exe = exe
	r, err := bench.ControllerSSH(ctx, so, e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d hosts × %d testers × %d clients, %.0f samples/s for %v over ssh: sent %d, stored %d, lost %d; %.0f samples/s (median %.0f); controller peak RSS %.1f MB, %.1f CPU-s\n",
		r.Hosts, r.TestersPerHost, r.ClientsPerTester, r.Rate, o.Duration, r.Sent, r.Stored, r.Lost, r.SamplesPerS, r.MedianSamplesPerS, r.ControllerRSSMB, r.ControllerCPUS)
	return printJSON(e, r)
}

func checkSSHBench(o bench.SSHOptions, given map[string]bool) error {
	switch {
	case len(o.Hosts) == 0:
		return errs.Usagef("--transport ssh needs --ssh-hosts h1,h2,...: the hosts its testers run on")
	case o.TestersPerHost < 1 || o.ClientsPerTester < 1:
		return errs.Usagef("--testers-per-host and --clients-per-tester must be positive")
	case given["testers"] && o.Testers != len(o.Hosts)*o.TestersPerHost:
		return errs.Usagef("--testers %d: with --transport ssh the testers are --ssh-hosts × --testers-per-host (%d); leave --testers out",
			o.Testers, len(o.Hosts)*o.TestersPerHost)
	case o.Mode != experiment.ModeDisk && o.Mode != experiment.ModeMemory:
		return errs.Usagef("--mode %q: want disk or memory", o.Mode)
	case o.Rate <= 0 || o.Duration <= 0:
		return errs.Usagef("--rate and --duration must be positive")
	case o.Interval() < 1e3:
		return errs.Usagef("--rate %.0f: each of the %d clients would call more often than every microsecond", o.Rate, o.Clients())
	}
	return nil
}
