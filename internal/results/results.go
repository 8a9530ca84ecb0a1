// Package results turns a run directory into its derived files: it loads
// the raw data, runs the analysis and writes quanta.csv, clients.csv,
// summary.json, model.json, and report.html with its graphs. Used at the
// end of a run and by `diperf analyze` and `diperf report` on an old run.
package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/report"
	"github.com/diperf/diperf/internal/rundir"
)

// Options choose how to analyze.
type Options struct {
	Quantum time.Duration // 0 = the experiment's
	Clock   string        // rundir.ClockSync (default) or rundir.ClockRaw
	// Progress receives a line every few seconds while a long run is read
	// (nil: nothing).
	Progress io.Writer
}

// Analyze analyzes dir and writes every derived file.
func Analyze(dir string, o Options) (*analyze.Result, error) {
	res, err := Compute(dir, o)
	if err != nil {
		return nil, err
	}
	if err := analyze.WriteFiles(dir, res); err != nil {
		return nil, err
	}
	m, err := writeModel(dir, res)
	if err != nil {
		return nil, err
	}
	return res, report.WriteFile(dir, res, m)
}

// writeModel fits the performance model, writes model.json and returns the
// model for the report; a run with too little data for a fit gets no
// model.json (and loses a stale one) and a nil model.
func writeModel(dir string, res *analyze.Result) (*model.Model, error) {
	m, err := model.Fit(res)
	if errors.Is(err, model.ErrTooFewPoints) {
		if err := os.Remove(filepath.Join(dir, model.FileName)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale %s: %w", model.FileName, err)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return m, model.WriteFile(dir, m)
}

// Compute loads dir and computes its analysis without writing anything.
func Compute(dir string, o Options) (*analyze.Result, error) {
	run, err := rundir.Load(dir, o.Quantum, o.Clock)
	if err != nil {
		return nil, err
	}
	run.Progress = o.Progress
	return run.Analyze()
}
