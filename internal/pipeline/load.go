package pipeline

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// Clock modes: how samples are placed on the global timeline.
const (
	ClockSync = "sync" // from each tester's sync records (the default)
	ClockRaw  = "raw"  // as each tester's own clock said, uncorrected
)

// Options choose how a run is analyzed.
type Options struct {
	Quantum time.Duration // 0 = the experiment's
	Clock   string        // ClockSync (default, also "") or ClockRaw
	// Progress receives a line every few seconds while a long run is read,
	// and notes such as a model fitted for want of model.json (nil: nothing).
	Progress io.Writer
}

// Dataset is a run directory loaded for analysis: everything the analyzer
// needs but the calls, which are streamed from samples.parquet.
type Dataset struct {
	Dir        string
	Experiment *experiment.Experiment
	Testers    []*rundir.TesterRecord
	Config     analyze.Config
	progress   io.Writer
	mapping    func(int32) *clock.Mapper
	incomplete string // why the run is incomplete ("": it is not)
}

// Load reads a run directory's experiment and tester records. A run whose
// controller died is first recovered from its spool (see Recover).
func Load(dir string, o Options) (_ *Dataset, err error) {
	defer errs.Recover("loading "+dir, &err)
	exp, err := experiment.LoadRecorded(filepath.Join(dir, rundir.Experiment))
	if err != nil {
		return nil, fmt.Errorf("not a readable run directory: %w", err)
	}
	if _, err := Recover(dir, o.Progress); err != nil {
		return nil, err
	}
	incomplete, err := Incomplete(dir)
	if err != nil {
		return nil, err
	}
	testers, err := rundir.ReadTesters(dir)
	if err != nil {
		return nil, err
	}
	mapping, err := clockMapping(o.Clock, testers)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Dir: dir, Experiment: exp, Testers: testers, progress: o.Progress, mapping: mapping,
		incomplete: incomplete}
	quantum := o.Quantum
	if quantum == 0 {
		quantum = exp.Analysis.Quantum.D()
	}
	d.Config = analyze.Config{Name: exp.Name, Quantum: quantum, Planned: exp.Schedule.Testers,
		ClientsPerTester: exp.Schedule.ClientsPerTester, ClientStartInterval: exp.Schedule.ClientStartInterval.D()}
	d.Config.Span = boundedSpan(exp, testers)
	d.Config.UDP = udpCounts(testers)
	d.Config.Refused = refusals(testers)
	d.Config.Lost = lostOf(testers)
	d.Config.Health = d.readHealth()
	d.sayRefusedSites(testers)
	for _, t := range testers {
		if t.StartNs == 0 {
			continue // never ran its client loop: counted by Analyze as failed
		}
		a := analyzeTester(t)
		if o.Clock == ClockRaw && len(t.Syncs) > 0 {
			// Uncorrected: the tester's lifetime on its own clock too.
			off := clock.NewMapper(t.Syncs).Offset(t.StartNs - t.Syncs[0].OffsetNs)
			a.Start, a.End = a.Start-off, a.End-off
		}
		d.Config.Testers = append(d.Config.Testers, a)
	}
	return d, nil
}

// clockMapping returns how the clock mode places each tester's calls on
// the global timeline: through its sync records, or not at all (a nil
// mapper: no correction).
func clockMapping(mode string, testers []*rundir.TesterRecord) (func(int32) *clock.Mapper, error) {
	switch mode {
	case ClockSync, "":
		mappers := map[int32]*clock.Mapper{}
		for _, t := range testers {
			mappers[int32(t.Slot)] = clock.NewMapper(t.Syncs)
		}
		return func(t int32) *clock.Mapper { return mappers[t] }, nil
	case ClockRaw:
		return func(int32) *clock.Mapper { return nil }, nil
	}
	return nil, fmt.Errorf("unknown clock mode %q (want %s or %s)", mode, ClockSync, ClockRaw)
}

// Stream hands every call of the run to fn in batches, placed on the
// global timeline like the analysis places them (see rundir.StreamCalls).
func (d *Dataset) Stream(fn func([]sample.Call) error) error {
	return rundir.StreamCalls(d.Dir, d.mapping, fn)
}

// analyzeWorkers is how many goroutines fold calls: one per core but the
// one that decodes the file, at least one.
func analyzeWorkers() int {
	return max(1, min(runtime.GOMAXPROCS(0)-1, 4))
}

// Analyze computes the analysis of the run in one pass over its samples,
// and counts the testers that failed before their client loop started,
// which the analyzer never sees. Each of also sees every batch of calls of
// that same pass (in order, before the analyzer), so that a caller that
// needs more of the calls reads them once.
func (d *Dataset) Analyze(also ...func([]sample.Call) error) (*analyze.Result, error) {
	cfg := d.Config
	if len(cfg.Testers) == 0 || !cfg.Span.Bounded() {
		origin, span, err := d.earliestStart(cfg.Span)
		if err != nil {
			return nil, err
		}
		cfg.Origin, cfg.Span = origin, span
	}
	acc, err := analyze.NewParallel(cfg, analyzeWorkers())
	if err != nil {
		return nil, err
	}
	total, _ := rundir.CountSamples(d.Dir) // for the progress line only
	var malformed uint64
	fold := func(calls []sample.Call) error {
		calls = wellFormed(calls, cfg.ClientsPerTester, &malformed)
		for _, fn := range also {
			if err := fn(calls); err != nil {
				return err
			}
		}
		return acc.Add(calls)
	}
	err = d.Stream(progress(d.progress, total, fold))
	res, rerr := acc.Result() // also stops the workers
	if err == nil {
		err = rerr
	}
	if err != nil && total == 0 && d.incomplete != "" {
		return nil, fmt.Errorf("%s: the controller stopped before any sample reached it, so there is nothing to analyze (see %s and %s/)",
			d.Dir, rundir.Events, rundir.LogDir)
	}
	if err != nil {
		return nil, err
	}
	for _, t := range d.Testers {
		if t.StartNs == 0 {
			res.Summary.Testers.Failed++
		}
		if t.StoppedEarly {
			res.Summary.AddEarlyStop(t.Slot, t.ID, t.StopReason)
		}
	}
	if d.incomplete != "" {
		res.Summary.Incomplete, res.Summary.IncompleteReason = true, d.incomplete
	}
	countMalformed(&res.Summary, malformed)
	if err := d.setErrorsTop(&res.Summary); err != nil {
		return nil, err
	}
	d.sayHealthRefused(res.Summary.Testers.HealthRefused, res.Summary.Testers.HealthRefusedReason)
	return res, nil
}

// earliestStart is the start of the earliest call within span: the
// origin of a run with no tester lifetimes to start at. A span that
// bounds nothing (no tester has a launch time) is made around the first
// call of the file (spanAround) and returned.
func (d *Dataset) earliestStart(span analyze.Span) (int64, analyze.Span, error) {
	var origin int64
	first := true
	err := d.Stream(func(calls []sample.Call) error {
		for i := range calls {
			if !span.Bounded() {
				span = spanAround(d.Experiment, calls[i].Start)
			}
			if s := calls[i].Start; span.Holds(s) && (first || s < origin) {
				origin, first = s, false
			}
		}
		return nil
	})
	return origin, span, err
}

// analyzeTester is what the analyzer needs to know of tester t.
func analyzeTester(t *rundir.TesterRecord) analyze.Tester {
	off, rtt, bound := t.ClockFigures()
	if t.TargetRTTNs > 0 {
		rtt = float64(t.TargetRTTNs) / 1e6 // the target itself was probed
	}
	a := analyze.Tester{Index: t.Slot, ID: t.ID, Host: t.Host, Start: t.StartNs, End: t.StopNs,
		Failed: t.Failed, LatencyMs: rtt, OffsetMs: off, BoundMs: bound,
		StartSkewMs: float64(t.StartSkewNs()) / 1e6, Synchronized: t.PlannedNs != 0,
		ClockUnauth: !t.ClockAuth, ClockRefused: t.ClockRefused, ClockSuspect: t.ClockSuspect, ClockSyncsRefused: t.ClockSyncsRefused}
	a.Site = t.Site
	for _, s := range t.Syncs {
		a.Syncs = append(a.Syncs, analyze.TesterSync{T: s.LocalNs + s.OffsetNs, OffsetMs: float64(s.OffsetNs) / 1e6,
			RTTMs: float64(s.RTTNs) / 1e6, BoundMs: float64(s.BoundNs) / 1e6})
	}
	return a
}

// udpCounts sums the testers' datagram counts (nil: no tester sent
// datagrams).
func udpCounts(testers []*rundir.TesterRecord) *analyze.UDPCounts {
	var u *analyze.UDPCounts
	for _, t := range testers {
		if !t.UDP {
			continue
		}
		if u == nil {
			u = &analyze.UDPCounts{Exact: true}
		}
		u.Datagrams += t.UDPDatagrams
		u.Lost += t.UDPLost
		u.SendErrors += t.UDPSendErrors
		u.Late += t.UDPLate
		u.Duplicates += t.UDPDuplicates
		u.Stale += t.UDPStale
		u.Exact = u.Exact && t.UDPLossExact
	}
	return u
}
