// Package rundir owns the run directory: the name and format of every file
// in it, and the one way files are written there. While a run goes, the
// controller appends to the samples spool and the event log; at its end the
// spool becomes samples.parquet and the testers' records testers.csv and
// syncs.csv. The derived files (quanta.csv, clients.csv, summary.json,
// model.json, report.html, graph-*.svg) are encoded by the packages that
// compute them and written here through WriteFile, so that every file of a
// run is complete or absent, never half written, and readable by all.
//
// Storage knows nothing of the analysis: it reads and writes records.
package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File names inside a run directory.
const (
	Experiment  = "experiment.yaml" // the experiment as run, defaults filled in
	Spool       = "samples.spool"   // samples as they arrive (replaced by Samples at the end)
	Samples     = "samples.parquet" // one row per client call
	SamplesOrig = Samples + ".orig" // the samples before `analyze --verify --fix` dropped rows
	Testers     = "testers.csv"     // one row per tester
	Syncs       = "syncs.csv"       // every clock sync of every tester
	Events      = "events.jsonl"    // the controller's events
	Server      = "server.csv"      // the demo target's own served-per-second counts
	Network     = "network.csv"     // tester hosts <-> target, from the sensor mesh (experiment key sensors)
	Monitor     = "monitor.csv"     // the server view: the experiment's monitor endpoints, scraped during the run
	Quanta      = "quanta.csv"      // per quantum figures
	Clients     = "clients.csv"     // per tester figures
	Hosts       = "hosts.csv"       // per tester host and per site figures
	Summary     = "summary.json"    // the summary table
	Model       = "model.json"      // the models of performance against load
	Report      = "report.html"     // the report
	LogDir      = "logs"            // each tester's own output
	Search      = "search.json"     // a capacity search's answer and steps (search.Result)
	SearchCSV   = "search.csv"      // a capacity search's steps, one row each (search.WriteCSV)
)

// GraphFile is the name of the report's graph with element id id (e.g.
// "graph-a" → "graph-a.svg").
func GraphFile(id string) string { return id + ".svg" }

// ErrHoldsRun is returned (wrapped) by Create for a directory that
// already holds a run.
var ErrHoldsRun = errors.New("already holds a run")

// Create makes a new run directory (and its logs folder); it refuses to
// reuse one that already holds a run (ErrHoldsRun).
func Create(dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, Experiment)); err == nil {
		return fmt.Errorf("run directory %s %w", dir, ErrHoldsRun)
	}
	return os.MkdirAll(filepath.Join(dir, LogDir), 0o755)
}

// Path returns the path of file name in dir.
func Path(dir, name string) string { return filepath.Join(dir, name) }

// LogPath is where tester slot's own output goes.
func LogPath(dir string, slot int) string {
	return filepath.Join(dir, LogDir, fmt.Sprintf("tester-%03d.log", slot))
}
