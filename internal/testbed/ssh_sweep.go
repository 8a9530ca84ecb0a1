package testbed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/contain"
)

// SweepRun ends what an ssh run left on this host (diperf sweep, run
// there by the ssh testbed): it kills every process of each tester's
// client jail (contain.SweepTester) and of each tester session recorded under dir/runs/run/pids (only slot's when slot >= 0),
// and with remove deletes dir/runs/run, and dir/runs once empty, but for
// the testers' spools (spool/N.spool) whose slot N is not in settled:
// those stay for `diperf fetch` (removeRun). It returns the number of
// process groups it signalled and of spools it kept.
func SweepRun(dir, run string, slot int, remove bool, settled map[int]bool) (killed, kept int, err error) {
	if run == "" || strings.ContainsAny(run, `/\`) || run == "." || run == ".." {
		return 0, 0, fmt.Errorf("sweep: %q is no run id", run)
	}
	runDir := filepath.Join(dir, "runs", run)
	sids, err := recordedSessions(filepath.Join(runDir, "pids"), slot)
	if err != nil {
		return 0, 0, err
	}
	for sid := range sids { // while each tester lives: its cgroup is read from /proc
		killed += contain.SweepTester(sid)
	}
	killed += killSessions(sids)
	if remove {
		if kept, err = removeRun(runDir, settled); err != nil {
			return killed, kept, fmt.Errorf("sweep: %w", err)
		}
		_ = os.Remove(filepath.Join(dir, "runs")) // fails while another run's files are there
	}
	return killed, kept, nil
}

// recordedSessions reads the session ids (tester pids) recorded in dir,
// one file per slot.
func recordedSessions(dir string, slot int) (map[int]bool, error) {
	names := []string{strconv.Itoa(slot)}
	if slot < 0 {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		names = names[:0]
		for _, e := range entries {
			names = append(names, e.Name())
		}
	}
	sids := map[int]bool{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			continue // not started, or removed
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
			sids[pid] = true
		}
	}
	return sids, nil
}

// MadeFile is the file, in a run's folder on a host, that lists the paths
// the run created there (NUL-separated, oldest first): a later run removes
// them if this one never cleaned up (SweepStale). It is written only when
// the run's files are not to be kept.
const MadeFile = "made"

// StaleSweep is what SweepStale did.
type StaleSweep struct {
	Removed []string       // runs removed
	Kept    map[string]int // runs removed but for their testers' spools: how many stay
	Adopt   []string       // paths above the work dir those runs made, the caller's run's now
}

// SweepStale removes what runs that ended without cleaning up (their
// controller was killed) left under dir: every run folder but except's
// whose recorded tester sessions have no live process, and the paths its
// MadeFile lists, newest first (folders only when empty; nothing outside
// dir); the testers' spools stay, for `diperf fetch` (removeRun). The
// paths it leaves because they are dir or above it are in Adopt, but
// those of a run whose spools stay, which stay in its MadeFile: `diperf
// fetch` removes them (when empty) once it took the spools.
func SweepStale(dir, except string) (StaleSweep, error) {
	sw := StaleSweep{Kept: map[string]int{}}
	runs := filepath.Join(dir, "runs")
	entries, err := os.ReadDir(runs)
	if errors.Is(err, fs.ErrNotExist) {
		return sw, nil
	}
	if err != nil {
		return sw, fmt.Errorf("sweep: %w", err)
	}
	for _, e := range entries {
		if e.Name() == except || !e.IsDir() {
			continue
		}
		rd := filepath.Join(runs, e.Name())
		sids, _ := recordedSessions(filepath.Join(rd, "pids"), -1)
		if len(groupsOfSessions(sids)) > 0 {
			continue // a run in progress
		}
		adopt := removeMade(dir, filepath.Join(rd, MadeFile))
		n, err := removeRun(rd, nil)
		if err != nil {
			return sw, fmt.Errorf("sweep: %w", err)
		}
		if n == 0 {
			sw.Removed, sw.Adopt = append(sw.Removed, e.Name()), append(sw.Adopt, adopt...)
			continue
		}
		sw.Kept[e.Name()] = n
		if err := keepMade(rd, adopt); err != nil { // the folders above stay the run's, for diperf fetch
			return sw, fmt.Errorf("sweep: %w", err)
		}
	}
	_ = os.Remove(runs)
	return sw, nil
}

// removeMade removes the paths a made file lists, newest first, and
// returns those that are dir or above it.
func removeMade(dir, made string) (adopt []string) {
	b, err := os.ReadFile(made)
	if err != nil {
		return nil
	}
	paths := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for i := len(paths) - 1; i >= 0; i-- {
		p := filepath.Clean(paths[i])
		switch {
		case p == "." || !filepath.IsAbs(p):
		case p == dir || strings.HasPrefix(dir, p+string(filepath.Separator)):
			adopt = append([]string{p}, adopt...)
		case strings.HasPrefix(p, dir+string(filepath.Separator)):
			_ = os.Remove(p) // a folder only when empty
		}
	}
	return adopt
}

// keepMade rewrites the MadeFile of run folder rd to list paths.
func keepMade(rd string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	return os.WriteFile(filepath.Join(rd, MadeFile), []byte(strings.Join(paths, "\x00")+"\x00"), 0o644)
}
