package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/controller"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
)

func runCmd(ctx context.Context, e *env, args []string) error {
	return runWith(ctx, e, "run", args, nil)
}

// runWith is `diperf run` as command name, whose testers run client
// instead of the experiment's client unless it is nil.
func runWith(ctx context.Context, e *env, name string, args []string, client *protocol.ClientDesc) error {
	fs := newFlags(e, name, "EXPERIMENT.yaml [--set KEY=VALUE ...] [--out DIR] [--listen ADDR] [--advertise HOST[:PORT]] [--secret-file FILE] [--junit FILE]")
	rf := addRunFlags(fs)
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	exp, o, err := rf.setup(e, fs, pos[0], nil)
	if err != nil {
		return err
	}
	o.Client = client
	return runExperiment(ctx, e, exp, o, rf.uif, *rf.junit)
}

// runFlags are the flags of diperf run, which diperf search shares.
type runFlags struct {
	sets                                  []string
	out, listen, advertise, secret, junit *string
	uif                                   *uiFlags
}

// addRunFlags adds diperf run's flags to fs.
func addRunFlags(fs *flag.FlagSet) *runFlags {
	f := &runFlags{}
	fs.Func("set", "KEY=VALUE: put VALUE (YAML) at KEY of the experiment file before it is read, e.g. client.udp.address=127.0.0.1:5353 or monitor[0].log.path=/tmp/access.log (repeatable)", func(v string) error {
		f.sets = append(f.sets, v)
		return nil
	})
	f.out = fs.String("out", "", "run directory (default runs/<name>-<UTC time>)")
	f.listen = fs.String("listen", "127.0.0.1:0", "address the controller listens on for testers")
	f.advertise = fs.String("advertise", "", "address testers are told to dial for the controller (and, with its own port, its time server); default the listen address, or loopback for a wildcard listen on a local testbed")
	f.uif = addUIFlags(fs)
	f.secret = fs.String("secret-file", "", "read the run's secret (which testers prove they hold) from this file, private to its owner (mode 600), at least 32 random bytes, instead of making a random one")
	f.junit = junitFlag(fs)
	return f
}

// setup loads the experiment file at path with the --set values and
// then more (later ones win), and builds the controller's options from
// it and the flags: listen and advertise addresses, the run's secret,
// the relays and the open-file limit they need.
func (f *runFlags) setup(e *env, fs *flag.FlagSet, path string, more []string) (*experiment.Experiment, controller.Options, error) {
	exp, err := experiment.LoadWith(path, append(slices.Clip(f.sets), more...))
	if err != nil {
		return nil, controller.Options{}, errs.Usage(err, "fix the experiment file; see examples/ for a complete one, docs/testbeds.md for the testbed keys")
	}
	o := controller.Options{Dir: *f.out, Listen: *f.listen, Advertise: *f.advertise}
	given := givenFlags(fs)
	if !given["listen"] {
		o.Listen = cmp.Or(exp.Controller.Listen, exp.Testbed.Listen, *f.listen)
	}
	if !given["advertise"] {
		o.Advertise = exp.Controller.Advertise
	}
	if err := f.secretOf(e, exp, &o); err != nil {
		return nil, o, err
	}
	return exp, o, relayOptions(e, exp, &o)
}

// secretOf puts the run's secret in o: a join run's token file, else
// --secret-file's (else the controller makes one).
func (f *runFlags) secretOf(e *env, exp *experiment.Experiment, o *controller.Options) (err error) {
	switch {
	case exp.Testbed.Provider == experiment.ProviderJoin && exp.Testbed.TokenFile == "":
		err = errs.Usagef("the join provider needs testbed.token_file (made with the controller's key when missing): its testers prove they hold its secret, and obey only the key it names")
	case exp.Testbed.Provider == experiment.ProviderJoin:
		o.Token, o.Key, err = joinCredential(e, exp)
		if err == nil && *f.secret != "" {
			err = errs.Usagef("--secret-file and testbed.token_file both give the join run's secret: give the token file only")
		}
	case *f.secret != "":
		o.Secret, err = readSecretFile(*f.secret)
	}
	return err
}

// relayOptions chooses how exp's testers reach the controller (their
// reach, relays, UDP samples: testbed.Choose) into o and raises the open-file limit for what the controller keeps open.
func relayOptions(e *env, exp *experiment.Experiment, o *controller.Options) error {
	lim, err := getNoFile()
	if err != nil {
		return fmt.Errorf("reading the open-file limit: %w", err)
	}
	path, err := testbed.Choose(exp, lim.max)
	if err != nil {
		return err
	}
	o.Path = &path
	if err := raiseNoFile(e.stderr, "the controller of "+strconv.Itoa(exp.Schedule.Testers)+" testers", testbed.OwnFiles(exp, path.Relays)); err != nil {
		return err
	}
	if path.Relays > 0 {
		fmt.Fprintf(e.stderr, "diperf: %d relay processes take the testers' connections, up to %d each\n", path.Relays, path.PerRelay)
	}
	return nil
}

// runExperiment runs exp with o, prints the summary, says where the
// report is, and checks the thresholds (writing a JUnit report to junit
// unless it is ""): exit code 3 when one failed, 1 when no call succeeded
// (Summary.NoSuccess), whatever the thresholds say.
func runExperiment(ctx context.Context, e *env, exp *experiment.Experiment, o controller.Options, uif *uiFlags, junit string) error {
	if o.Dir == "" {
		o.Dir = defaultRunDir(exp.Name)
	}
	if exp.Search != nil {
		cfg, err := searchConfig(exp)
		if err != nil {
			return errs.Usage(err, searchHint)
		}
		o.Search = &cfg
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
	if res == nil || res.Analysis == nil {
		return err // stopped, and the analysis failed: the error says why
	}
	runErr, s := err, &res.Analysis.Analysis.Summary
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
	terr := cmp.Or(searchErr(s), checkThresholds(e, o.Dir, res.Analysis, junit))
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
