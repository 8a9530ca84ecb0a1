package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/compare"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/pipeline"
)

// minResamples is the fewest bootstrap resamples compare accepts: with
// fewer, the 2.5th and 97.5th percentiles of the differences are too rough.
const minResamples = 100

// compareCmd compares run B with run A: throughput, response time, error
// rate, saturation and fairness side by side, with bootstrap confidence
// intervals and a verdict, as a table or (--json) one JSON object.
func compareCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "compare", "RUN_A RUN_B [--json] [--resamples N] [--seed S] [--quantum D] [--clock sync|raw] [--fail-if slower,errors]")
	asJSON := fs.Bool("json", false, "print the comparison as one JSON object")
	resamples := fs.Int("resamples", compare.DefaultResamples, "bootstrap resamples of each 95% confidence interval")
	seed := fs.Uint64("seed", compare.DefaultSeed, "bootstrap random seed, not 0 (the same seed gives the same intervals)")
	quantum := fs.Duration("quantum", 0, "aggregation quantum of both runs, e.g. 1s (default: each experiment's own)")
	clockMode := clockFlag(fs)
	failIf := fs.String("fail-if", "", "exit with code 3 when B regressed against A: slower (median response time significantly higher or throughput at matched load significantly lower), errors (error rate significantly higher), or both comma-separated")
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	var kinds []string
	if *failIf != "" {
		if kinds, err = compare.ParseFailIf(*failIf); err != nil {
			return errs.Usagef("--fail-if: %v", err)
		}
	}
	switch {
	case *resamples < minResamples:
		return errs.Usagef("--resamples must be at least %d", minResamples)
	case *seed == 0:
		return errs.Usagef("--seed must not be 0")
	}
	if err := checkAnalysisFlags(*quantum, *clockMode); err != nil {
		return err
	}
	for _, dir := range pos { // a run whose controller died is rebuilt from its spool first
		if _, err := pipeline.Recover(dir, e.stderr); err != nil {
			return err
		}
	}
	c, err := compare.Runs(pos[0], pos[1], compare.Options{Resamples: *resamples, Seed: *seed, Quantum: *quantum, Clock: *clockMode})
	if err != nil {
		return err
	}
	if *asJSON {
		err = json.NewEncoder(e.stdout).Encode(c)
	} else {
		err = c.Format(e.stdout)
	}
	if err != nil {
		return err
	}
	if r := c.Regressions(kinds); len(r) > 0 {
		return &errs.Error{Code: errs.CodeRefused, Err: fmt.Errorf("run B regressed against run A: %s", strings.Join(r, "; "))}
	}
	return nil
}
