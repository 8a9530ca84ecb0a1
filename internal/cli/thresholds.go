package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/threshold"
)

// junitFlag adds --junit to fs.
func junitFlag(fs *flag.FlagSet) *string {
	return fs.String("junit", "", "write the thresholds' results to this file as a JUnit XML report, for CI systems (docs/thresholds.md)")
}

// checkThresholds prints the thresholds of run dir as its analysis d
// checked them (summary.json's), writes them to junit as a JUnit report
// unless it is "", and returns an error of exit code 3 when one failed.
func checkThresholds(e *env, dir string, d *pipeline.Derived, junit string) error {
	rs := d.Thresholds
	if len(rs) > 0 {
		fmt.Fprintf(e.stdout, "\nthresholds:\n")
		if err := threshold.Format(e.stdout, rs); err != nil {
			return err
		}
	}
	if junit != "" {
		if err := writeJUnit(junit, dir, d); err != nil {
			return err
		}
	}
	n := threshold.Failures(rs)
	if n == 0 {
		return nil
	}
	return &errs.Error{Code: errs.CodeRefused, Err: fmt.Errorf("%d of %d thresholds failed (%s in %s)", n, len(rs), rundir.Summary, dir),
		Hint: "the run itself completed; its files are all written"}
}

// writeJUnit writes the thresholds of run dir, as its analysis d checked
// them, to path as a JUnit XML report named after the experiment.
func writeJUnit(path, dir string, d *pipeline.Derived) (err error) {
	s, rs := &d.Analysis.Summary, d.Thresholds
	suite := threshold.Suite{Name: d.Name, Dir: dir, DurationS: s.DurationS}
	if s.OriginNs != 0 {
		suite.Timestamp = time.Unix(0, s.OriginNs).UTC().Format(time.RFC3339)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the JUnit report: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	return threshold.WriteJUnit(f, suite, rs)
}
