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
	fs := newFlags(e, "sweep", "--dir WORK_DIR --run RUNID [--slot N] [--remove]")
	dir := fs.String("dir", "", "the ssh testbed's work dir on this host")
	run := fs.String("run", "", "the run id (its folder is WORK_DIR/runs/RUNID)")
	slot := fs.Int("slot", -1, "sweep only this tester's session (default: every tester of the run)")
	remove := fs.Bool("remove", false, "remove the run's folder once its processes are gone")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if *dir == "" || *run == "" {
		return errs.Usagef("sweep needs --dir and --run; it is run on hosts by the ssh testbed")
	}
	n, err := testbed.SweepRun(*dir, *run, *slot, *remove)
	fmt.Fprintf(e.stdout, "killed %d process group(s)\n", n)
	return err
}
