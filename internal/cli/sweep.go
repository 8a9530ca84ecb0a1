package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/testbed"
)

// sweepCmd is run on a host by the ssh testbed: it kills every process of
// the run's tester sessions there (testers and their clients) and, with
// --remove, removes the run's folder but for the testers' spools the
// controller did not settle.
func sweepCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "sweep", "--dir WORK_DIR --run RUNID [--slot N] [--remove [--settled-stdin]] | --dir WORK_DIR --stale [--run RUNID]")
	dir := fs.String("dir", "", "the ssh testbed's work dir on this host")
	run := fs.String("run", "", "the run id (its folder is WORK_DIR/runs/RUNID)")
	slot := fs.Int("slot", -1, "sweep only this tester's session (default: every tester of the run)")
	remove := fs.Bool("remove", false, "remove the run's folder once its processes are gone, but for the testers' spools not settled")
	settledIn := fs.Bool("settled-stdin", false, "with --remove: read from stdin the slots whose spools the controller settled (they go too)")
	stale := fs.Bool("stale", false, "instead: remove what runs with no live tester left (all but --run's) but their testers' spools, and say which paths above --dir they made")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if *stale && *dir != "" {
		return sweepStale(e, *dir, *run)
	}
	if *dir == "" || *run == "" {
		return errs.Usagef("sweep needs --dir and --run; it is run on hosts by the ssh testbed")
	}
	var settled map[int]bool
	if *settledIn {
		var err error
		if settled, err = readSlots(os.Stdin); err != nil {
			return err
		}
	}
	n, kept, err := testbed.SweepRun(*dir, *run, *slot, *remove, settled)
	fmt.Fprintf(e.stdout, "killed %d process group(s)\n", n)
	if kept > 0 {
		fmt.Fprintf(e.stdout, "kept %d spool(s)\n", kept)
	}
	return err
}

// sweepStale is sweep --stale: a line per run removed ("removed RUN"),
// per run whose spools stay ("kept RUN N"), per path adopted ("adopt P").
func sweepStale(e *env, dir, run string) error {
	sw, err := testbed.SweepStale(dir, run)
	for _, r := range sw.Removed {
		fmt.Fprintln(e.stdout, "removed", r)
	}
	runs := make([]string, 0, len(sw.Kept))
	for r := range sw.Kept {
		runs = append(runs, r)
	}
	sort.Strings(runs)
	for _, r := range runs {
		fmt.Fprintln(e.stdout, "kept", r, sw.Kept[r])
	}
	for _, p := range sw.Adopt {
		fmt.Fprintln(e.stdout, "adopt", p)
	}
	return err
}

// readSlots reads whitespace-separated slot numbers (at most 16 MiB).
func readSlots(r io.Reader) (map[int]bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("sweep: reading the settled slots: %w", err)
	}
	slots := map[int]bool{}
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, errs.Usagef("sweep: %q is no slot", f)
		}
		slots[n] = true
	}
	return slots, nil
}
