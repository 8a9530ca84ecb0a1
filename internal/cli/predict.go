package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/pipeline"
)

// predictCmd implements `diperf predict RUN_DIR --load N [--json]`: the
// throughput and response time the run's performance model expects at a
// load of N calls in flight.
func predictCmd(_ context.Context, e *env, args []string) error {
	flags := newFlags(e, "predict", "RUN_DIR --load N [--json]")
	load := flags.Float64("load", 0, "offered load to predict at, in calls in flight (> 0)")
	asJSON := flags.Bool("json", false, "print one JSON object")
	pos, err := parse(flags, args, 1)
	if err != nil {
		return err
	}
	if !(*load > 0) || math.IsInf(*load, 0) {
		return errs.Usagef("--load must be a positive number of calls in flight, got %g", *load)
	}
	m, err := pipeline.Model(pos[0], pipeline.Options{Progress: e.stderr}, nil)
	if err != nil {
		return err
	}
	p := m.Predict(*load)
	if *asJSON {
		return printPredictionJSON(e.stdout, p, m)
	}
	printPrediction(e.stdout, p, m)
	return nil
}

// printPredictionJSON prints p and both fits as one JSON object.
func printPredictionJSON(w io.Writer, p model.Prediction, m *model.Model) error {
	out := struct {
		model.Prediction
		Selection model.Selection `json:"selection"`
		USL       *model.USL      `json:"usl"`
		Bounds    *model.Bounds   `json:"bounds,omitempty"`
	}{p, m.Selection, &m.USL, m.Bounds}
	if err := json.NewEncoder(w).Encode(&out); err != nil {
		return fmt.Errorf("encode prediction: %w", err)
	}
	return nil
}

// printPrediction prints p and both fits for people.
func printPrediction(w io.Writer, p model.Prediction, m *model.Model) {
	x, r, u := p.Throughput, p.ResponseTimeMs, &m.USL
	if p.Bound == model.BoundLower {
		fmt.Fprintf(w, "at a load of %g calls in flight: throughput at least %.1f calls/s, response time at least %.1f ms\n",
			p.Load, x.Low, r.Low)
		fmt.Fprintf(w, "  %s\n", p.Note)
	} else {
		fmt.Fprintf(w, "at a load of %g calls in flight: throughput %.1f calls/s (95%% interval %.1f–%.1f), response time %.1f ms (%.1f–%.1f)\n",
			p.Load, x.Value, x.Low, x.High, r.Value, r.Low, r.High)
	}
	if p.Extrapolated {
		fmt.Fprintf(w, "  an extrapolation: the run measured loads %.3g to %.3g only\n", u.MinLoad, u.MaxLoad)
	}
	if s := m.Saturation; s != nil && s.Shown {
		fmt.Fprintf(w, "saturated within the tested range: %s\n", s.Reason)
	} else if s != nil {
		fmt.Fprintf(w, "not saturated within the tested range (load ≤ %.3g): %s\n", u.MaxLoad, s.Reason)
	}
	fmt.Fprintf(w, "predicted by the %s model (%s)\n", modelTitle(p.Model), m.Selection.Reason)
	printUSL(w, u)
	if b := m.Bounds; b != nil {
		fmt.Fprintf(w, "bounds fit: min(N/R0, X*) with R0 %.1f ms (light load), X* %.1f calls/s (plateau), knee at %.3g calls in flight, R² %.3f over %d quanta\n",
			b.R0Ms, b.Plateau, b.KneeLoad, b.R2, b.Points)
	}
}

// modelTitle is how people call the model named name.
func modelTitle(name string) string {
	if name == model.ModelBounds {
		return "asymptotic bounds"
	}
	return "USL"
}

// printUSL prints the USL fit for people.
func printUSL(w io.Writer, u *model.USL) {
	fmt.Fprintf(w, "USL fit: λ %.4g calls/s, σ %.4g (contention), κ %.4g (coherency), R² %.3f over %d quanta\n",
		u.Lambda, u.Sigma, u.Kappa, u.R2, u.Points)
	switch {
	case u.Kappa > 0:
		fmt.Fprintf(w, "  peak load: %.3g calls in flight, for %.1f calls/s\n", u.PeakLoad, u.PeakThroughput)
	case u.Sigma > 0:
		fmt.Fprintf(w, "  peak load: none; throughput levels off towards %.1f calls/s\n", u.Lambda/u.Sigma)
	default:
		fmt.Fprintln(w, "  peak load: none; throughput grows linearly with load")
	}
}
