package experiment

// Search is the experiment's `search:` key: a capacity search against
// service-level objectives (docs/search.md). `diperf search`'s flags
// override its fields.
type Search struct {
	// SLO lists the objectives every step is held to, in the thresholds'
	// syntax: "p99_ms < 200", "error_rate < 1%", "mean_ms < 50".
	SLO []string `yaml:"slo"`
	// Precision: the search stops when (hi − lo)/lo is at most this
	// share ("5%", or 5); 0: 5%.
	Precision Percent `yaml:"precision,omitempty"`
	// MaxRate is the highest load tried: calls/s for an open model
	// (schedule.rate), active clients for a closed one; 0: no bound.
	MaxRate float64 `yaml:"max_rate,omitempty"`
	// Start is the first load; 0: MaxRate/16.
	Start float64 `yaml:"start,omitempty"`
	// TimeBudget bounds the seconds of load the search uses; 0: the
	// schedule's duration.
	TimeBudget Duration `yaml:"time_budget,omitempty"`
	// MinCapacity, when above 0, fails the run (exit code 3) when the
	// capacity found is below it, or none is: for CI, last release's
	// capacity.
	MinCapacity float64 `yaml:"min_capacity,omitempty"`
}
