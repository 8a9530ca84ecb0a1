package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/controller"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/rundir"
)

func runCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "run", "EXPERIMENT.yaml [--set KEY=VALUE ...] [--out DIR] [--listen ADDR] [--advertise HOST[:PORT]] [--secret-file FILE] [--junit FILE]")
	var sets []string
	fs.Func("set", "KEY=VALUE: put VALUE (YAML) at KEY of the experiment file before it is read, e.g. client.udp.address=127.0.0.1:5353 or monitor[0].log.path=/tmp/access.log (repeatable)", func(v string) error {
		sets = append(sets, v)
		return nil
	})
	out := fs.String("out", "", "run directory (default runs/<name>-<UTC time>)")
	listen := fs.String("listen", "127.0.0.1:0", "address the controller listens on for testers")
	advertise := fs.String("advertise", "", "address testers are told to dial for the controller (and, with its own port, its time server); default the listen address, or loopback for a wildcard listen on a local testbed")
	uif := addUIFlags(fs)
	secretFile := fs.String("secret-file", "", "read the run's secret (which testers prove they hold) from this file, private to its owner (mode 600), at least 32 random bytes, instead of making a random one")
	junit := junitFlag(fs)
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	exp, err := experiment.LoadWith(pos[0], sets)
	if err != nil {
		return errs.Usage(err, "fix the experiment file; see examples/ for a complete one, docs/testbeds.md for the testbed keys")
	}
	o := controller.Options{Dir: *out, Listen: *listen, Advertise: *advertise, Client: benchNullClient(e.stderr)}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["listen"] {
		o.Listen = cmp.Or(exp.Controller.Listen, exp.Testbed.Listen, *listen)
	}
	if !given["advertise"] {
		o.Advertise = exp.Controller.Advertise
	}
	switch {
	case exp.Testbed.Provider == experiment.ProviderJoin && exp.Testbed.TokenFile == "":
		err = errs.Usagef("the join provider needs testbed.token_file (made with the controller's key when missing): its testers prove they hold its secret, and obey only the key it names")
	case exp.Testbed.Provider == experiment.ProviderJoin:
		o.Token, o.Key, err = joinCredential(e, exp)
		if err == nil && *secretFile != "" {
			err = errs.Usagef("--secret-file and testbed.token_file both give the join run's secret: give the token file only")
		}
	case *secretFile != "":
		o.Secret, err = readSecretFile(*secretFile)
	}
	if err != nil {
		return err
	}
	lim, err := getNoFile()
	if err != nil {
		return fmt.Errorf("reading the open-file limit: %w", err)
	}
	plan, err := planRelays(exp, lim)
	if err != nil {
		return err
	}
	if err := raiseNoFile(e.stderr, "the controller of "+strconv.Itoa(exp.Schedule.Testers)+" testers", applyRelays(&o, exp, plan)); err != nil {
		return err
	}
	if plan.relays > 0 {
		fmt.Fprintf(e.stderr, "diperf: %d relay processes take the testers' connections, up to %d each\n", plan.relays, plan.perRelay)
	}
	return runExperiment(ctx, e, exp, o, uif, *junit)
}

// runExperiment runs exp with o, prints the summary, says where the
// report is, and checks the thresholds (writing a JUnit report to junit
// unless it is ""): exit code 3 when one failed, 1 when no call succeeded
// (Summary.NoSuccess), whatever the thresholds say.
func runExperiment(ctx context.Context, e *env, exp *experiment.Experiment, o controller.Options, uif *uiFlags, junit string) error {
	if o.Dir == "" {
		o.Dir = defaultRunDir(exp.Name)
	}
	u, err := startUI(e, exp, o.Dir, uif)
	if err != nil {
		return err
	}
	defer u.stop(ctx, e)
	o.Live = u.run
	o.Experiment = exp
	o.Progress = e.stderr
	fmt.Fprintf(e.stderr, "diperf: running %q with %d testers into %s\n", exp.Name, exp.Schedule.Testers, o.Dir)
	res, err := controller.Run(ctx, o)
	if res != nil && res.Failed > 0 {
		fmt.Fprintf(e.stderr, "diperf: %d of %d testers failed; their samples up to the failure are kept (see testers.csv, events.jsonl)\n",
			res.Failed, exp.Schedule.Testers)
	}
	stopped := errors.Is(err, controller.ErrThresholdAbort) // the run is complete up to there: show it
	if err != nil && !stopped {
		return err
	}
	runErr := err
	s, err := pipeline.ReadSummary(o.Dir)
	if err != nil {
		return err
	}
	if err := analyze.FormatSummary(e.stdout, s); err != nil {
		return err
	}
	status := "completed"
	failed := s.NoSuccess()
	switch {
	case failed != "":
		status = "failed (no call succeeded)"
	case stopped:
		status = "stopped by a threshold"
	case ctx.Err() != nil:
		status = "interrupted"
	}
	fmt.Fprintf(e.stdout, "\nrun %s: %s\nreport: %s\n", status, o.Dir, rundir.Path(o.Dir, rundir.Report))
	terr := checkThresholds(e, o.Dir, s, junit)
	if failed != "" {
		return &errs.Error{Code: errs.CodeFailed, Err: errors.New(failed), Hint: noSuccessHint}
	}
	if runErr != nil && (terr == nil || errs.Code(terr) == errs.CodeRefused) {
		return runErr // stopped by a threshold: that says more than "n failed"
	}
	return terr
}

// noSuccessHint is the hint of a run in which no call succeeded.
const noSuccessHint = "every file of the run is written: summary.json errors_top and samples.parquet's error column say what the calls got"

func defaultRunDir(name string) string {
	return filepath.Join("runs", name+"-"+time.Now().UTC().Format("20060102T150405Z"))
}

// controllerFiles is about how many files a controller of exp keeps open
// when it takes the testers' connections itself (controller.OwnFiles).
func controllerFiles(exp *experiment.Experiment) uint64 { return controller.OwnFiles(exp, 0) }
