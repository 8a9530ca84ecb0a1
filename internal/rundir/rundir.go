// Package rundir reads and writes the run directory of DESIGN.md: the
// samples spool written while a run goes, samples.parquet, testers.csv,
// syncs.csv and events.jsonl, and loads a run back for the analyzer.
package rundir

import (
	"fmt"
	"os"
	"path/filepath"
)

// File names inside a run directory.
const (
	Experiment = "experiment.yaml"
	Spool      = "samples.spool"
	Samples    = "samples.parquet"
	Testers    = "testers.csv"
	Syncs      = "syncs.csv"
	Events     = "events.jsonl"
	Server     = "server.csv"
	LogDir     = "logs"
)

// Create makes a new run directory (and its logs folder); it refuses to
// reuse one that already holds a run.
func Create(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, Experiment)); err == nil {
		return fmt.Errorf("run directory %s already holds a run; choose another --out", dir)
	}
	return os.MkdirAll(filepath.Join(dir, LogDir), 0o755)
}

// writeAtomic writes a file via a temporary name and a rename, so that a
// crash never leaves half a file under the real name.
func writeAtomic(path string, write func(f *os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
