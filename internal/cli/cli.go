// Package cli is the diperf command line: each subcommand parses its flags
// into an options struct and calls one engine function; errors come back
// here and are printed once, with their exit code and hint.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/diperf/diperf/internal/errs"
)

// env is the process state a command may touch, injected so that the whole
// CLI can run in-process in tests.
type env struct {
	stdout, stderr io.Writer
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, e *env, args []string) error
	hidden  bool
}

var commands map[string]command

func init() {
	commands = map[string]command{
		"run":        {"run an experiment file", runCmd, false},
		"search":     {"find the highest load that meets service-level objectives (an experiment file, --slo)", searchCmd, false},
		"demo":       {"start a demo target and load it past saturation, on this machine", demoCmd, false},
		"target":     {"serve the demo service with a known capacity", targetCmd, false},
		"analyze":    {"(re)analyze a run directory", analyzeCmd, false},
		"fetch":      {"bring the testers' spools a run left on its ssh hosts into its directory", fetchCmd, false},
		"report":     {"(re)draw a run directory's report.html", reportCmd, false},
		"call":       {"make one call to a service (a client for experiments)", callCmd, false},
		"tester":     {"the tester agent (started by a testbed)", testerCmd, false},
		"token":      {"make a token for testers that join, and the controller's key that pairs with it", tokenCmd, false},
		"version":    {"print the version", versionCmd, false},
		"probe":      {probeSummary, probeCmd, false},
		"forecast":   {"what bandwidth and latency will A → B have? (the sensors' forecasts)", forecastCmd, false},
		"netmap":     {"the latest bandwidth and latency between sensors (terminal, --json, --svg)", netmapCmd, false},
		"directory":  {"serve the sensor mesh's directory (HTTP/JSON, SQLite)", directoryCmd, false},
		"timeserver": {"serve time to testers (UDP, and TCP with --tcp)", timeserverCmd, false},
		"predict":    {"predict throughput and response time at a load", predictCmd, false},
		"compare":    {"compare two runs: is B faster than A? (bootstrap 95% CIs)", compareCmd, false},
		"monitor":    {"serve this host's CPU, memory, network and processes for Prometheus (node_exporter's names)", monitorCmd, false},
		"validate":   {"hold a run's client view against a server counter its monitor scraped", validateCmd, false},
		"relay":      {"accept testers' connections for a controller (started by diperf run)", relayCmd, true},
		"sweep":      {"end what an ssh run left on this host (run there by the ssh testbed)", sweepCmd, true},
		"sensor":     {sensorSummary, sensorCmd, false},
		"bench":      {"benchmarks: bench " + strings.Join(benchNames(), " | bench ") + " (last line: JSON figures)", benchCmd, false},
	}
}

// Version is the diperf version, set at link time.
var Version = "dev"

// Main runs diperf with args and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return errs.CodeOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = []string{"version"}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "diperf: unknown command %q\n", args[0])
		usage(stderr)
		return errs.CodeUsage
	}
	ctx, stop := interruptContext(stderr, interruptNote(args[0]))
	defer stop()
	stopProfile := startProfile(stderr)
	err := cmd.run(ctx, e, args[1:])
	stopProfile()
	if errors.Is(err, flag.ErrHelp) {
		return errs.CodeOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "diperf %s: %s\n", args[0], errorText(args[0], err))
		if h := errs.Hint(err); h != "" {
			fmt.Fprintf(stderr, "hint: %s\n", h)
		}
	}
	return errs.Code(err)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "diperf: distributed performance testing\n\nUsage: diperf COMMAND [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'diperf COMMAND -h' for a command's flags; 'diperf --version' for the version.")
}

// interruptContext is cancelled at the first SIGINT/SIGTERM, so that a run
// stops its testers and still writes its files; a second one exits at once.
func interruptContext(stderr io.Writer, note string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-ch; !ok {
			return
		}
		fmt.Fprintf(stderr, "\ndiperf: interrupted; %s (interrupt again to quit at once)\n", note)
		cancel()
		if _, ok := <-ch; ok {
			os.Exit(130)
		}
	}()
	return ctx, func() { signal.Stop(ch); close(ch); cancel() }
}

// interruptNote says what a command does when interrupted.
func interruptNote(cmd string) string {
	switch cmd {
	case "run", "demo", "search":
		return "stopping testers and writing results"
	case "sensor":
		return "cutting the test in progress short and saying what was spent"
	}
	return "stopping"
}

// newFlags returns a flag set that reports errors as usage errors.
func newFlags(e *env, name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet("diperf "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: diperf %s %s\n\nFlags:\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags, allowing them before and after the positional
// arguments, and wants exactly nargs positional arguments, which it returns.
func parse(fs *flag.FlagSet, args []string, nargs int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errs.Usage(err, "see '"+fs.Name()+" -h'")
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != nargs {
		fs.Usage()
		return nil, errs.Usagef("want %d argument(s), got %d", nargs, len(pos))
	}
	return pos, nil
}

func versionCmd(_ context.Context, e *env, _ []string) error {
	fmt.Fprintln(e.stdout, "diperf", Version)
	return nil
}
