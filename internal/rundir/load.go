package rundir

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/sample"
)

// Run is a run directory loaded for analysis.
type Run struct {
	Dir        string
	Experiment *experiment.Experiment
	Testers    []*TesterRecord
	Config     analyze.Config // everything the analysis needs but the calls
	Progress   io.Writer      // where Analyze reports a long read's progress (nil: nowhere)
	mapping    func(int32) *clock.Mapper
}

// Clock modes: how samples are placed on the global timeline.
const (
	ClockSync = "sync" // from each tester's sync records (the default)
	ClockRaw  = "raw"  // as each tester's own clock said, uncorrected
)

// Load reads a run directory. quantum 0 means the experiment's own; clock
// is ClockSync or ClockRaw ("" = ClockSync).
func Load(dir string, quantum time.Duration, clockMode string) (*Run, error) {
	exp, err := experiment.Load(filepath.Join(dir, Experiment))
	if err != nil {
		return nil, fmt.Errorf("not a readable run directory: %w", err)
	}
	testers, err := ReadTesters(dir)
	if err != nil {
		return nil, err
	}
	mappers := map[int32]*clock.Mapper{}
	for _, t := range testers {
		mappers[int32(t.Slot)] = clock.NewMapper(t.Syncs)
	}
	var mapping func(int32) *clock.Mapper
	switch clockMode {
	case ClockSync, "":
		mapping = func(t int32) *clock.Mapper { return mappers[t] }
	case ClockRaw:
		mapping = func(int32) *clock.Mapper { return nil }
	default:
		return nil, fmt.Errorf("unknown clock mode %q (want %s or %s)", clockMode, ClockSync, ClockRaw)
	}
	if quantum == 0 {
		quantum = exp.Analysis.Quantum.D()
	}
	in := analyze.Config{Name: exp.Name, Quantum: quantum, Planned: exp.Schedule.Testers}
	for _, t := range testers {
		in.Lost += int(t.Lost())
		if t.StartNs == 0 {
			continue // never ran its client loop: counted by Analyze as failed
		}
		a := analyzeTester(t)
		if clockMode == ClockRaw && len(t.Syncs) > 0 {
			// Uncorrected: the tester's lifetime on its own clock too.
			off := clock.NewMapper(t.Syncs).Offset(t.StartNs - t.Syncs[0].OffsetNs)
			a.Start, a.End = a.Start-off, a.End-off
		}
		in.Testers = append(in.Testers, a)
	}
	return &Run{Dir: dir, Experiment: exp, Testers: testers, Config: in, mapping: mapping}, nil
}

// Calls reads every call of the run into memory, placed on the global
// timeline like the analysis places them.
func (r *Run) Calls() ([]sample.Call, error) {
	return ReadCalls(r.Dir, r.mapping)
}

// Stream hands every call of the run to fn in batches, placed on the
// global timeline like the analysis places them (see StreamCalls).
func (r *Run) Stream(fn func([]sample.Call) error) error {
	return StreamCalls(r.Dir, r.mapping, fn)
}

// analyzeWorkers is how many goroutines fold calls: one per core but the
// one that decodes the file, at least one.
func analyzeWorkers() int {
	return max(1, min(runtime.GOMAXPROCS(0)-1, 4))
}

// Analyze computes the analysis of a loaded run, streaming its samples
// through the analyzer, and counts the testers that failed before their
// client loop started, which the analyzer never sees.
func (r *Run) Analyze() (*analyze.Result, error) {
	cfg := r.Config
	if len(cfg.Testers) == 0 {
		// No tester lifetimes to start the run at: the earliest call does.
		first := true
		err := StreamCalls(r.Dir, r.mapping, func(calls []sample.Call) error {
			if e := analyze.EarliestStart(calls); len(calls) > 0 && (first || e < cfg.Origin) {
				cfg.Origin, first = e, false
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	acc, err := analyze.NewParallel(cfg, analyzeWorkers())
	if err != nil {
		return nil, err
	}
	total, _ := CountSamples(r.Dir) // for the progress line only
	err = StreamCalls(r.Dir, r.mapping, progress(r.Progress, total, acc.Add))
	res, rerr := acc.Result() // also stops the workers
	if err == nil {
		err = rerr
	}
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

func analyzeTester(t *TesterRecord) analyze.Tester {
	off, rtt, bound := t.ClockFigures()
	if t.TargetRTTNs > 0 {
		rtt = float64(t.TargetRTTNs) / 1e6 // the target itself was probed
	}
	a := analyze.Tester{Index: t.Slot, ID: t.ID, Host: t.Host, Start: t.StartNs, End: t.StopNs,
		Failed: t.Failed, LatencyMs: rtt, OffsetMs: off, BoundMs: bound,
		StartSkewMs: float64(t.StartSkewNs()) / 1e6, Synchronized: t.PlannedNs != 0}
	for _, s := range t.Syncs {
		a.Syncs = append(a.Syncs, analyze.TesterSync{T: s.LocalNs + s.OffsetNs, OffsetMs: float64(s.OffsetNs) / 1e6,
			RTTMs: float64(s.RTTNs) / 1e6, BoundMs: float64(s.BoundNs) / 1e6})
	}
	return a
}
