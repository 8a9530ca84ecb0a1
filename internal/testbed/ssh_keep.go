package testbed

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SpoolDir is the folder, in a run's folder on a host, of its testers'
// spools: spool/N.spool for tester slot N.
const SpoolDir = "spool"

// removeRun removes the run folder runDir, but for the testers' spools
// that hold something and whose slot is not in settled: those stay, in
// runDir/spool, for `diperf fetch`, which removes them once it has them.
// It returns how many it kept.
func removeRun(runDir string, settled map[int]bool) (int, error) {
	kept, err := removeSpools(filepath.Join(runDir, SpoolDir), settled)
	if err != nil || kept == 0 {
		if rerr := os.RemoveAll(runDir); err == nil {
			err = rerr
		}
		return kept, err
	}
	entries, err := os.ReadDir(runDir)
	if err != nil {
		return kept, err
	}
	var errs []error
	for _, e := range entries {
		if e.Name() != SpoolDir {
			errs = append(errs, os.RemoveAll(filepath.Join(runDir, e.Name())))
		}
	}
	return kept, errors.Join(errs...)
}

// removeSpools removes from dir what is no unsettled spool with samples,
// and returns how many of those it left.
func removeSpools(dir string, settled map[int]bool) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	kept := 0
	var errs []error
	for _, e := range entries {
		slot, ok := spoolSlot(e.Name())
		if info, ierr := e.Info(); ok && ierr == nil && info.Mode().IsRegular() && info.Size() > 0 && !settled[slot] {
			kept++
			continue
		}
		errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
	}
	return kept, errors.Join(errs...)
}

// spoolSlot reads the slot of a spool's name on a host ("N.spool").
func spoolSlot(name string) (int, bool) {
	s, ok := strings.CutSuffix(name, ".spool")
	if !ok || s == "" || len(s) > 9 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
