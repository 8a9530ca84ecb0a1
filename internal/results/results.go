// Package results turns a run directory into its derived files: it loads
// the raw data, runs the analysis and writes quanta.csv, clients.csv,
// summary.json and report.html. Used at the end of a run and by
// `diperf analyze` and `diperf report` on an old run.
package results

import (
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/report"
	"github.com/diperf/diperf/internal/rundir"
)

// Analyze analyzes dir at the given quantum (0 = the experiment's) and
// writes every derived file.
func Analyze(dir string, quantum time.Duration) (*analyze.Result, error) {
	res, err := Compute(dir, quantum)
	if err != nil {
		return nil, err
	}
	if err := analyze.WriteFiles(dir, res); err != nil {
		return nil, err
	}
	return res, report.WriteFile(dir, res)
}

// Compute loads dir and computes its analysis without writing anything.
func Compute(dir string, quantum time.Duration) (*analyze.Result, error) {
	run, err := rundir.Load(dir, quantum)
	if err != nil {
		return nil, err
	}
	return run.Analyze()
}
