package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
)

// fetchCmd brings the testers' own spools a run left on its ssh hosts into
// the run directory, where `diperf analyze` merges them.
func fetchCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "fetch", "RUN_DIR")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	dir := pos[0]
	exp, err := experiment.LoadRecorded(filepath.Join(dir, rundir.Experiment))
	if err != nil {
		return fmt.Errorf("not a readable run directory: %w", err)
	}
	if f, err := rundir.LockSpool(rundir.Path(dir, rundir.Spool)); err == nil {
		f.Close()
	} else if errors.Is(err, rundir.ErrSpoolInUse) {
		return fmt.Errorf("%w; wait for `diperf run` to end, then fetch %s", err, dir)
	}
	got, err := testbed.Fetch(ctx, dir, exp.Testbed, func(slot int) string {
		if slot >= exp.Schedule.Testers {
			return "" // no tester of the run: a file the host made up
		}
		return rundir.TesterSpoolPath(dir, slot)
	})
	sayFetched(e.stdout, dir, got)
	return err
}

// sayFetched says what came from each host, and what to do next.
func sayFetched(w io.Writer, dir string, got []testbed.Fetched) {
	n := 0
	for _, f := range got {
		if f.Err == nil {
			fmt.Fprintf(w, "%s: %d testers' spools (%d bytes)\n", f.Host, f.Spools, f.Bytes)
		}
		n += f.Spools
	}
	if n > 0 {
		fmt.Fprintf(w, "fetched %d testers' spools into %s; `diperf analyze %s` merges them\n",
			n, filepath.Join(dir, rundir.LogDir), dir)
	}
}
