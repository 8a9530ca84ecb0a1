package protocol

import (
	"fmt"
	"math"
)

// Arrival processes of the open model.
const (
	ArrivalsUniform = "uniform" // evenly spaced intended starts
	ArrivalsPoisson = "poisson" // exponential gaps (a Poisson process)
)

// RateDesc is one tester's share of the open model: its arrival rate over
// time as stages, each moving linearly from From to To calls/s over its
// duration (a constant stage has From == To). After the last stage the
// tester stops making calls.
type RateDesc struct {
	Arrivals string      `json:"arrivals"` // ArrivalsUniform or ArrivalsPoisson
	Stages   []StageDesc `json:"stages"`
	// MaxLatenessNs: a call that cannot start within this of its
	// intended start (every client busy) is dropped, and counted.
	MaxLatenessNs int64 `json:"max_lateness_ns"`
	// Seed seeds the Poisson gaps (each tester its own).
	Seed uint64 `json:"seed,omitempty"`
}

// StageDesc is one stage of a RateDesc.
type StageDesc struct {
	DurationNs int64   `json:"duration_ns"`
	From       float64 `json:"from"` // calls/s at the stage's start
	To         float64 `json:"to"`   // calls/s at its end
}

// Bounds of a RateDesc.
const (
	MaxStages = 1000
	MaxRate   = 10_000_000 // calls/s of one tester
)

// Validate checks a RateDesc received from the wire.
func (r *RateDesc) Validate() error {
	switch {
	case r.Arrivals != ArrivalsUniform && r.Arrivals != ArrivalsPoisson:
		return fmt.Errorf("testdesc: rate arrivals %q (want %s or %s)", r.Arrivals, ArrivalsUniform, ArrivalsPoisson)
	case len(r.Stages) == 0 || len(r.Stages) > MaxStages:
		return fmt.Errorf("testdesc: rate needs 1..%d stages, got %d", MaxStages, len(r.Stages))
	case r.MaxLatenessNs <= 0:
		return fmt.Errorf("testdesc: rate max_lateness_ns must be positive")
	}
	for i, s := range r.Stages {
		ok := func(v float64) bool { return !math.IsNaN(v) && v >= 0 && v <= MaxRate }
		if s.DurationNs <= 0 || !ok(s.From) || !ok(s.To) {
			return fmt.Errorf("testdesc: rate stage %d: duration must be positive and rates 0..%d calls/s", i, MaxRate)
		}
	}
	return nil
}

// DurationNs returns the stages' total length.
func (r *RateDesc) DurationNs() int64 {
	var t int64
	for _, s := range r.Stages {
		t += s.DurationNs
	}
	return t
}
