package pipeline

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
)

// joinServer gives res, in a run with the experiment key monitor, the
// server view read from the run's monitor.csv. A file that cannot be read
// is said on progress, never an error: the server view is an extra of the
// run.
func (d *Dataset) joinServer(res *analyze.Result) {
	if len(d.Experiment.Monitor) == 0 {
		return
	}
	pts, err := rundir.ReadMonitor(d.Dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && d.progress != nil {
			fmt.Fprintf(d.progress, "the run's server view is left out: %v\n", err)
		}
		return
	}
	res.Server = pts
}
