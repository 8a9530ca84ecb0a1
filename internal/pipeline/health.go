package pipeline

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// readHealth reads the run's health.csv for the analysis. A run without
// it has no health (nil, nothing said); one that cannot be read is said on
// progress and analyzed without it, never an error: the testers' health
// is an extra of the run.
func (d *Dataset) readHealth() []sample.Health {
	rows, err := rundir.ReadHealth(d.Dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && d.progress != nil {
			fmt.Fprintf(d.progress, "warning: the testers' health is left out (no quantum can be marked tester-bound): %v\n", err)
		}
		return nil
	}
	return rows
}

// sayHealthRefused says on progress how many rows of health.csv the
// analysis refused, and why the first was.
func (d *Dataset) sayHealthRefused(n int, reason string) {
	if n > 0 && d.progress != nil {
		fmt.Fprintf(d.progress, "warning: %d rows of %s refused as impossible or repeated (first: %s)\n", n, rundir.Health, reason)
	}
}
