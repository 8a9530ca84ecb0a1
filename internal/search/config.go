package search

import (
	"fmt"
	"math"
	"time"
)

// Config is what a search is asked: the objectives and how the steps and
// the path are run. Zero fields take the defaults of Defaults.
type Config struct {
	SLOs      []SLO
	Start     float64       // the first load (calls/s, or clients); default MaxRate/16
	MaxRate   float64       // the highest load tried; 0: no bound (then Start is needed)
	Precision float64       // stop when (hi − lo)/lo ≤ Precision; default 0.05
	Budget    time.Duration // the seconds of load the search may use; 0: no bound
	Growth    float64       // the factor of the loads before a fail; default 2
	// Per step: the error rates of each SLO's decision, the indifference
	// δ of the binomial tests (share b: tested b·(1−δ) against b·(1+δ)),
	// the warm-up left out and the limit of the seconds measured after it.
	Alpha, Beta  float64
	Indifference float64
	MinWarmup    time.Duration // default 2 s
	MaxWarmup    time.Duration // default 10 s
	Settle       float64       // throughput within this share of the offered rate: settled; default 0.1
	StepLimit    time.Duration // default 30 s
	// Whole says the loads are whole numbers (a closed model's active
	// clients): each load is rounded (at least 1, strictly inside the
	// bracket), and the bracket is closed too when hi − lo ≤ 1.
	Whole bool
	// Poisson says the open model's arrivals are a Poisson process: the
	// calls offered in a step then vary by chance (±√n), which the check
	// that the service kept up with its load allows for (KeepsUp).
	Poisson bool
}

// Defaults fills c's zero fields and checks it.
func (c Config) Defaults() (Config, error) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Precision, 0.05)
	def(&c.Growth, 2)
	def(&c.Alpha, 0.05)
	def(&c.Beta, 0.05)
	def(&c.Indifference, 0.5)
	def(&c.Settle, 0.1)
	if c.Start == 0 {
		c.Start = c.MaxRate / 16
	}
	for _, d := range []struct {
		v *time.Duration
		d time.Duration
	}{{&c.MinWarmup, 2 * time.Second}, {&c.MaxWarmup, 10 * time.Second}, {&c.StepLimit, 30 * time.Second}} {
		if *d.v == 0 {
			*d.v = d.d
		}
	}
	return c, c.check()
}

// check refuses a configuration the search cannot run.
func (c Config) check() error {
	bad := func(v, lo, hi float64) bool { return math.IsNaN(v) || v < lo || v > hi }
	switch {
	case len(c.SLOs) == 0:
		return fmt.Errorf("search needs at least one objective")
	case bad(c.Start, 1e-9, MaxLoad) || c.MaxRate != 0 && bad(c.MaxRate, c.Start, MaxLoad):
		return fmt.Errorf("search: want 0 < start ≤ max-rate ≤ 1e9, got start %g, max-rate %g", c.Start, c.MaxRate)
	case bad(c.Precision, 0.001, 1):
		return fmt.Errorf("search: the precision must lie in [0.1%%, 100%%], got %g%%", 100*c.Precision)
	case bad(c.Growth, 1.1, 100):
		return fmt.Errorf("search: the growth factor must lie in [1.1, 100], got %g", c.Growth)
	case bad(c.Alpha, 1e-6, 0.5) || bad(c.Beta, 1e-6, 0.5) || bad(c.Indifference, 0.01, 0.99) || bad(c.Settle, 0.01, 0.5):
		return fmt.Errorf("search: α, β in (0, 0.5], indifference in [0.01, 0.99], settle in [0.01, 0.5]")
	case c.MinWarmup < 0 || c.MaxWarmup < c.MinWarmup || c.StepLimit < 3*time.Second || c.Budget < 0:
		return fmt.Errorf("search: want 0 ≤ min warm-up ≤ max warm-up, a step limit of 3 s or more, a budget ≥ 0")
	}
	return nil
}

// secs is d in whole seconds, rounded up.
func secs(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }
