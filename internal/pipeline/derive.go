package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/report"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/threshold"
)

// Analysis loads dir and computes its analysis without writing anything.
func Analysis(dir string, o Options) (res *analyze.Result, err error) {
	defer errs.Recover("analyzing "+dir, &err)
	_, res, err = analysis(dir, o)
	return res, err
}

// analysis loads dir and computes its analysis.
func analysis(dir string, o Options) (*Dataset, *analyze.Result, error) {
	d, err := Load(dir, o)
	if err != nil {
		return nil, nil, err
	}
	res, err := d.Analyze()
	if err != nil {
		return nil, nil, err
	}
	d.joinNetwork(res)
	d.joinServer(res)
	d.joinSearch(res)
	return d, res, nil
}

// DeriveAll analyzes dir and writes every derived file: quanta.csv,
// clients.csv, summary.json (with the experiment's thresholds checked, see
// ReadThresholds), model.json (removed when the data are too few for a
// fit, so that no stale model outlives its data) and the report. It
// returns what it found as soon as summary.json is written, with the
// error of a later step (the model, the report) if one failed.
func DeriveAll(dir string, o Options) (_ *Derived, err error) {
	defer errs.Recover("analyzing "+dir, &err)
	d, res, err := analysis(dir, o)
	if err != nil {
		return nil, err
	}
	ths, err := threshold.Evaluate(d.Experiment.Thresholds, res)
	if err != nil {
		return nil, fmt.Errorf("checking the thresholds of %s: %w", dir, err)
	}
	if err := writeAnalysis(dir, res, ths); err != nil {
		return nil, err
	}
	found := &Derived{Analysis: res, Thresholds: ths, Name: d.Experiment.Name}
	m, err := model.Fit(res)
	switch {
	case errors.Is(err, model.ErrTooFewPoints):
		m, err = nil, rundir.Remove(dir, rundir.Model)
	case err == nil:
		err = model.WriteFile(dir, m)
	}
	if err != nil {
		return found, err
	}
	return found, report.WriteFile(dir, res, m)
}

// writeAnalysis writes quanta.csv, clients.csv and summary.json of res,
// with the thresholds' results ths.
func writeAnalysis(dir string, res *analyze.Result, ths []threshold.Result) error {
	if err := rundir.WriteFile(dir, rundir.Quanta, func(w io.Writer) error { return analyze.WriteQuanta(w, res.Quanta) }); err != nil {
		return err
	}
	if err := rundir.WriteFile(dir, rundir.Clients, func(w io.Writer) error { return analyze.WriteClients(w, res.ClientRows()) }); err != nil {
		return err
	}
	if err := writeHosts(dir, res); err != nil {
		return err
	}
	return rundir.WriteJSON(dir, rundir.Summary, summaryFile{Summary: &res.Summary, Thresholds: ths})
}

// ReadSummary reads the summary.json of dir's last analysis.
func ReadSummary(dir string) (*analyze.Summary, error) {
	var s analyze.Summary
	if err := rundir.ReadJSON(dir, rundir.Summary, &s); err != nil {
		return nil, fmt.Errorf("reading the run's summary: %w", err)
	}
	return &s, nil
}

// Redraw draws dir's report anew, from the data at the quantum of its last
// analysis (so that the report shows what summary.json says) and with its
// model.json (fitted afresh, and not written, when there is none). It
// returns the report's path.
func Redraw(dir string, o Options) (_ string, err error) {
	defer errs.Recover("drawing the report of "+dir, &err)
	if o.Quantum == 0 {
		q, err := lastQuantum(dir)
		if err != nil {
			return "", err
		}
		o.Quantum = q
	}
	res, err := Analysis(dir, o)
	if err != nil {
		return "", err
	}
	m, err := Model(dir, o, res)
	if errors.Is(err, model.ErrTooFewPoints) {
		m, err = nil, nil // too little data for a model: a report without one
	}
	if err != nil {
		return "", err
	}
	if err := report.WriteFile(dir, res, m); err != nil {
		return "", err
	}
	return rundir.Path(dir, rundir.Report), nil
}

// lastQuantum returns the quantum of the last analysis of dir; 0 when there
// is none yet.
func lastQuantum(dir string) (time.Duration, error) {
	s, err := ReadSummary(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return time.Duration(s.QuantumS * float64(time.Second)), nil
}

// Model returns dir's model: the one in its model.json, or, when there is
// none, one fitted to res (nil: analyzed from dir with o), saying so on
// o.Progress. The error is model.ErrTooFewPoints when the data are too
// few for a fit.
func Model(dir string, o Options, res *analyze.Result) (*model.Model, error) {
	m, err := model.ReadFile(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		return m, err
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "no %s in %s; fitting the model to the run's data\n", rundir.Model, dir)
	}
	if res == nil {
		if res, err = Analysis(dir, o); err != nil {
			return nil, err
		}
	}
	return model.Fit(res)
}
