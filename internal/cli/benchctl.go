package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// benchControllerCmd is `diperf bench controller`: a controller (`diperf
// run` of a join experiment, a child process) loaded by N tester sessions
// speaking the real protocol, sending R samples/s in total.
func benchControllerCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench controller", "--testers N --rate R --duration D [flags]")
	o := bench.ControllerOptions{}
	fs.IntVar(&o.Testers, "testers", 1000, "tester sessions to open")
	fs.Float64Var(&o.Rate, "rate", 100_000, "samples/s sent by all testers together")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "how long the testers send")
	fs.StringVar(&o.Transport, "transport", "tcp", "how testers reach the controller and send their samples: tcp (frames on their connection), udp (datagrams), or ssh (real testers on --ssh-hosts, with the null client)")
	fs.IntVar(&o.Relays, "relays", -1, "controller.relays: relay processes taking the testers' connections (-1: as the controller decides, by its open-file limit)")
	fs.StringVar(&o.Mode, "mode", "disk", "controller.mode: disk (spool samples as they come) or memory (keep them, write them at the end)")
	fs.StringVar(&o.Dir, "dir", "", "write the experiment, the controller's log and its run here (default: a temporary directory)")
	fs.BoolVar(&o.Keep, "keep", false, "keep the directory afterwards")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write the controller's CPU profile (its whole life) to this file")
	var sf sshBenchFlags
	sf.add(fs)
	fs.IntVar(&o.TestersPerProcess, "testers-per-process", 0,
		"tester sessions per generator process; more testers run in child processes (default: what RLIMIT_NOFILE's hard limit allows, less a reserve)")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if o.Transport == "ssh" {
		return benchControllerSSH(ctx, e, o, sf, givenFlags(fs))
	}
	if err := checkControllerBench(o); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	o.Exe = exe
	// The generator holds a connection per tester (the controller, which
	// inherits the limit, raises its own): past what one process may open,
	// child processes share them.
	if o.TestersPerProcess == 0 {
		o.TestersPerProcess = testersPerProcess()
	}
	need := uint64(min(o.Testers, o.TestersPerProcess)) + genReserve
	if err := raiseNoFile(e.stderr, fmt.Sprintf("bench controller with %d testers", o.Testers), need); err != nil {
		return err
	}
	r, err := bench.Controller(ctx, o, e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d testers, %.0f samples/s for %v: sent %d, stored %d, lost %d (controller: %d); %.0f samples/s; controller peak RSS %.1f MB, %.1f CPU-s, %.0f bytes per tester\n",
		r.Testers, r.Rate, o.Duration, r.Sent, r.Stored, r.Lost, r.ControllerLost, r.SamplesPerS, r.ControllerRSSMB, r.ControllerCPUS, r.BytesPerTester)
	return printJSON(e, r)
}

// genReserve is how many files a generator process keeps for itself
// besides its tester connections.
const genReserve = 256

// benchControllerGenCmd is `diperf bench controller-gen` (hidden): one
// generator process of a multi-process `bench controller`, which starts
// it and speaks to it over its stdin and stdout (bench.ServeGenerator).
func benchControllerGenCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench controller-gen", "(started by bench controller)")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	_ = raiseNoFile(io.Discard, "", 0) // soft to hard: the parent cut the slots to fit it
	return bench.ServeGenerator(ctx, os.Stdin, e.stdout)
}

func checkControllerBench(o bench.ControllerOptions) error {
	switch {
	case o.Transport != experiment.TransportTCP && o.Transport != experiment.TransportUDP && o.Transport != "ssh":
		return errs.Usagef("--transport %q: want tcp, udp or ssh", o.Transport)
	case o.Mode != experiment.ModeDisk && o.Mode != experiment.ModeMemory:
		return errs.Usagef("--mode %q: want disk or memory", o.Mode)
	case o.Testers < 1 || o.Rate <= 0 || o.Duration <= 0:
		return errs.Usagef("--testers, --rate and --duration must be positive")
	case o.TestersPerProcess < 0:
		return errs.Usagef("--testers-per-process %d: want positive (or 0: what RLIMIT_NOFILE allows)", o.TestersPerProcess)
	case o.Testers > 1_000_000:
		return errs.Usagef("--testers %d: at most 1,000,000", o.Testers)
	}
	return nil
}
