package rundir

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/experiment"
)

// Run is a run directory loaded for analysis.
type Run struct {
	Experiment *experiment.Experiment
	Testers    []*TesterRecord
	Input      *analyze.Input
}

// Load reads a run directory. quantum 0 means the experiment's own.
func Load(dir string, quantum time.Duration) (*Run, error) {
	exp, err := experiment.Load(filepath.Join(dir, Experiment))
	if err != nil {
		return nil, fmt.Errorf("not a readable run directory: %w", err)
	}
	testers, err := ReadTesters(dir)
	if err != nil {
		return nil, err
	}
	calls, err := ReadCalls(dir)
	if err != nil {
		return nil, err
	}
	if quantum == 0 {
		quantum = exp.Analysis.Quantum.D()
	}
	in := &analyze.Input{Name: exp.Name, Quantum: quantum, Planned: exp.Schedule.Testers, Calls: calls}
	for _, t := range testers {
		in.Lost += int(t.Lost())
		if t.StartNs == 0 {
			continue // never ran its client loop: counted by Analyze as failed
		}
		off, rtt, bound := t.ClockFigures()
		in.Testers = append(in.Testers, analyze.Tester{Index: t.Slot, ID: t.ID, Host: t.Host,
			Start: t.StartNs, End: t.StopNs, Failed: t.Failed, LatencyMs: rtt, OffsetMs: off, BoundMs: bound})
	}
	return &Run{Experiment: exp, Testers: testers, Input: in}, nil
}

// Analyze computes the analysis of a loaded run and counts the testers that
// failed before their client loop started, which the analyzer never sees.
func (r *Run) Analyze() (*analyze.Result, error) {
	res, err := analyze.Compute(r.Input)
	if err != nil {
		return nil, err
	}
	for _, t := range r.Testers {
		if t.StartNs == 0 {
			res.Summary.Testers.Failed++
		}
	}
	return res, nil
}
