package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/verify"
)

// testHookAnalyze, when set (by tests), is called with the run directory
// once analyzeCmd has parsed its flags.
var testHookAnalyze func(dir string)

func analyzeCmd(_ context.Context, e *env, args []string) (err error) {
	fs := newFlags(e, "analyze", "RUN_DIR [--quantum D] [--clock sync|raw] [--verify [--fix]] [--junit FILE]")
	quantum := fs.Duration("quantum", 0, "aggregation quantum, e.g. 100ms or 1m (default: the experiment's)")
	clockMode := clockFlag(fs)
	doVerify := fs.Bool("verify", false, "check the raw data first (end before start, duplicates, unknown testers, samples outside a tester's lifetime, missing clock records); stop if there are problems")
	fix := fs.Bool("fix", false, "with --verify: drop the bad rows (the original is kept as samples.parquet.orig), count them, then analyze")
	junit := junitFlag(fs)
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	defer errs.Recover("analyzing "+pos[0], &err)
	if testHookAnalyze != nil {
		testHookAnalyze(pos[0])
	}
	if err := recoverRun(e, pos[0], *doVerify || *fix, *fix); err != nil {
		return err
	}
	if err := checkAnalysisFlags(*quantum, *clockMode); err != nil {
		return err
	}
	d, err := pipeline.DeriveAll(pos[0], pipeline.Options{Quantum: *quantum, Clock: *clockMode, Progress: e.stderr})
	if err != nil {
		return err
	}
	res := d.Analysis
	if err := analyze.FormatSummary(e.stdout, &res.Summary); err != nil {
		return err
	}
	if res.Summary.Incomplete {
		fmt.Fprintf(e.stdout, "\nincomplete run: %s\n", res.Summary.IncompleteReason)
	}
	fmt.Fprintf(e.stdout, "\nwrote %s, %s, %s, %s in %s\n", rundir.Quanta, rundir.Clients, rundir.Summary, rundir.Report, pos[0])
	terr := cmp.Or(searchErr(&res.Summary), checkThresholds(e, pos[0], d, *junit))
	if failed := res.Summary.NoSuccess(); failed != "" {
		return &errs.Error{Code: errs.CodeFailed, Err: errors.New(failed), Hint: noSuccessHint}
	}
	return terr
}

// recoverRun rebuilds a run whose controller died from its spool and
// merges the testers' own spools first, so that a verification (check)
// checks the whole raw data; it says which ssh hosts may hold spools not
// fetched.
func recoverRun(e *env, dir string, check, fix bool) error {
	if _, err := pipeline.Recover(dir, e.stderr); err != nil {
		return err
	}
	sayUnfetched(e, dir)
	if check {
		return verifyRun(e, dir, fix)
	}
	return nil
}

// verifyRun checks (and with fix repairs) dir's raw data and prints the
// report; an unfixed problem stops the analysis with an error.
func verifyRun(e *env, dir string, fix bool) error {
	rep, err := verify.Check(dir, fix)
	if rep != nil {
		if ferr := rep.Format(e.stdout); ferr != nil && err == nil {
			err = ferr
		}
		fmt.Fprintln(e.stdout)
	}
	if err != nil {
		return err
	}
	if rep.RowsBad > 0 && !fix {
		return fmt.Errorf("%s: %d bad rows in the raw data; nothing analyzed (rerun with --verify --fix to drop them)", dir, rep.RowsBad)
	}
	return nil
}

func reportCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "report", "RUN_DIR")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	path, err := pipeline.Redraw(pos[0], pipeline.Options{Progress: e.stderr})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, path)
	return nil
}

// sayUnfetched says which ssh hosts of the run may still hold testers'
// spools never fetched (the controller died, or its cleanup kept them).
func sayUnfetched(e *env, dir string) {
	r, err := testbed.ReadSSHRun(dir)
	if err != nil {
		return
	}
	if hosts := r.Unfetched(); len(hosts) > 0 {
		fmt.Fprintf(e.stderr, "the testers' own spools on %s were not fetched: their samples are not in this analysis; `diperf fetch %s` brings them in\n",
			strings.Join(hosts, ", "), dir)
	}
}
