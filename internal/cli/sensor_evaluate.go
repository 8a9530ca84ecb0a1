package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/forecast"
)

// sensorEvaluateCmd implements `diperf sensor evaluate TRACE.csv [--json]
// [--out DIR]`: Gloperf §4's analysis of a trace (forecast.EvaluateFile).
func sensorEvaluateCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "sensor evaluate", "TRACE.csv [--json] [--out DIR]")
	asJSON := fs.Bool("json", false, "print one JSON object")
	out := fs.String("out", "", "also write the tables (CSV) and graphs (SVG) into this directory")
	o := forecast.Options{}
	fs.IntVar(&o.MaxPeriod, "max-period", forecast.DefaultMaxPeriod, "longest test period, in measurements (subsamples keep at least 10)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the random-guess baseline")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if o.MaxPeriod < 1 {
		return errs.Usagef("--max-period must be at least 1, got %d", o.MaxPeriod)
	}
	r, err := forecast.EvaluateFile(pos[0], o)
	if te := (*forecast.TraceError)(nil); errors.As(err, &te) {
		return errs.Usage(te.Err, te.Hint)
	} else if err != nil {
		return err
	}
	if *out != "" {
		if err := r.WriteFiles(*out); err != nil {
			return err
		}
	}
	if *asJSON {
		if err := json.NewEncoder(e.stdout).Encode(r); err != nil {
			return fmt.Errorf("encode evaluation: %w", err)
		}
		return nil
	}
	r.WriteTables(e.stdout)
	return nil
}
