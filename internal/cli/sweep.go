package cli

import (
	"context"
	"fmt"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/testbed"
)

// sweepCmd is run on a host by the ssh testbed: it kills every process of
// the run's tester sessions there (testers and their clients) and, with
// --remove, removes the run's folder.
func sweepCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "sweep", "--dir WORK_DIR --run RUNID [--slot N] [--remove] | --dir WORK_DIR --stale [--run RUNID]")
	dir := fs.String("dir", "", "the ssh testbed's work dir on this host")
	run := fs.String("run", "", "the run id (its folder is WORK_DIR/runs/RUNID)")
	slot := fs.Int("slot", -1, "sweep only this tester's session (default: every tester of the run)")
	remove := fs.Bool("remove", false, "remove the run's folder once its processes are gone")
	stale := fs.Bool("stale", false, "instead: remove what runs with no live tester left (all but --run's), and say which paths above --dir they made")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if *stale && *dir != "" {
		removed, adopt, err := testbed.SweepStale(*dir, *run)
		for _, r := range removed {
			fmt.Fprintln(e.stdout, "removed", r)
		}
		for _, p := range adopt {
			fmt.Fprintln(e.stdout, "adopt", p)
		}
		return err
	}
	if *dir == "" || *run == "" {
		return errs.Usagef("sweep needs --dir and --run; it is run on hosts by the ssh testbed")
	}
	n, err := testbed.SweepRun(*dir, *run, *slot, *remove)
	fmt.Fprintf(e.stdout, "killed %d process group(s)\n", n)
	return err
}
