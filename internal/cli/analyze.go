package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/report"
	"github.com/diperf/diperf/internal/results"
	"github.com/diperf/diperf/internal/rundir"
)

func analyzeCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "analyze", "RUN_DIR [--quantum D] [--verify [--fix]]")
	quantum := fs.Duration("quantum", 0, "aggregation quantum, e.g. 100ms or 1m (default: the experiment's)")
	clockMode := fs.String("clock", rundir.ClockSync, "place samples on the timeline from the testers' clock syncs (sync) or as their own clocks said (raw: no correction)")
	verify := fs.Bool("verify", false, "check the raw data first (end before start, duplicates, unknown testers, samples outside a tester's lifetime, missing clock records); stop if there are problems")
	fix := fs.Bool("fix", false, "with --verify: drop the bad rows (the original is kept as samples.parquet.orig), count them, then analyze")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if *verify || *fix {
		if err := verifyRun(e, pos[0], *fix); err != nil {
			return err
		}
	}
	if *quantum < 0 {
		return errs.Usagef("--quantum must not be negative")
	}
	if *clockMode != rundir.ClockSync && *clockMode != rundir.ClockRaw {
		return errs.Usagef("--clock must be %s or %s", rundir.ClockSync, rundir.ClockRaw)
	}
	res, err := results.Analyze(pos[0], results.Options{Quantum: *quantum, Clock: *clockMode, Progress: e.stderr})
	if err != nil {
		return err
	}
	if err := analyze.FormatSummary(e.stdout, &res.Summary); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nwrote quanta.csv, clients.csv, summary.json, %s in %s\n", report.FileName, pos[0])
	return nil
}

// verifyRun checks (and with fix repairs) dir's raw data and prints the
// report; an unfixed problem stops the analysis with an error.
func verifyRun(e *env, dir string, fix bool) error {
	rep, err := rundir.Verify(dir, fix)
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
	quantum, err := summaryQuantum(pos[0])
	if err != nil {
		return err
	}
	res, err := results.Compute(pos[0], results.Options{Quantum: quantum})
	if err != nil {
		return err
	}
	m, err := model.ReadFile(pos[0]) // the model of the last analysis
	if errors.Is(err, os.ErrNotExist) {
		// No model.json (deleted, or too little data): fit one to draw,
		// without writing it; none when the data are too few.
		m, err = model.Fit(res)
		if errors.Is(err, model.ErrTooFewPoints) {
			m, err = nil, nil
		}
	}
	if err != nil {
		return err
	}
	if err := report.WriteFile(pos[0], res, m); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, filepath.Join(pos[0], report.FileName))
	return nil
}

// summaryQuantum returns the quantum of the last analysis of dir, so that
// the report draws what summary.json says; 0 when there is none yet.
func summaryQuantum(dir string) (time.Duration, error) {
	s, err := analyze.ReadSummary(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return time.Duration(s.QuantumS * float64(time.Second)), nil
}
