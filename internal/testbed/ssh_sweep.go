package testbed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SweepRun ends what an ssh run left on this host (diperf sweep, run
// there by the ssh testbed): it kills every process of each tester
// session recorded under dir/runs/run/pids (only slot's when slot >= 0),
// and with remove deletes dir/runs/run, and dir/runs once empty. It
// returns the number of process groups it signalled.
func SweepRun(dir, run string, slot int, remove bool) (int, error) {
	if run == "" || strings.ContainsAny(run, `/\`) || run == "." || run == ".." {
		return 0, fmt.Errorf("sweep: %q is no run id", run)
	}
	runDir := filepath.Join(dir, "runs", run)
	sids, err := recordedSessions(filepath.Join(runDir, "pids"), slot)
	if err != nil {
		return 0, err
	}
	killed := killSessions(sids)
	if remove {
		if err := os.RemoveAll(runDir); err != nil {
			return killed, fmt.Errorf("sweep: %w", err)
		}
		_ = os.Remove(filepath.Join(dir, "runs")) // fails while another run's files are there
	}
	return killed, nil
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
