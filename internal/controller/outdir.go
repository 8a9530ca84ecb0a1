package controller

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/rundir"
)

// makeDir creates the run directory (and its logs folder) and checks that
// it can be written. What is wrong with --out is a usage error (exit code
// 2) with a hint: a path that is no directory, a directory that already
// holds a run, one that cannot be created or written.
func (c *controller) makeDir() error {
	dir := c.o.Dir
	st, statErr := os.Stat(dir)
	if statErr == nil && !st.IsDir() {
		return errs.Usage(fmt.Errorf("--out %s exists and is not a directory", dir),
			"give --out a new path (or an empty directory) for the run directory")
	}
	if err := rundir.Create(dir); errors.Is(err, rundir.ErrHoldsRun) {
		return errs.Usage(err, "choose another --out, or remove that directory to run into it again")
	} else if err != nil {
		return outDirError(dir, err)
	}
	c.madeDir = errors.Is(statErr, fs.ErrNotExist)
	for _, d := range []string{dir, filepath.Join(dir, rundir.LogDir)} {
		if err := writable(d); err != nil {
			c.removeDir()
			return outDirError(dir, err)
		}
	}
	return nil
}

// writable checks that a file can be created in dir.
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".diperf-probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// outDirError classes an error making the run directory: a permission, a
// read-only file system or a path through a file is the user's to fix
// (exit code 2), anything else (a full disk, an I/O error) a failure.
func outDirError(dir string, err error) error {
	err = fmt.Errorf("cannot create the run directory %s: %w", dir, err)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, fs.ErrExist) {
		return errs.Usage(err, "choose an --out where you may create and write files")
	}
	return err
}
