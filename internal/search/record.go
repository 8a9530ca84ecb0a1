package search

// SLORecord is one SLO's statistic and decision in a step.
type SLORecord struct {
	SLO string `json:"slo"`
	// Value is the statistic over the measured seconds (pNN and mean in
	// ms, error rate in %), Low and High its 95% interval (null when no
	// call was measured).
	Value     *float64 `json:"value"`
	Low       *float64 `json:"low"`
	High      *float64 `json:"high"`
	Objective float64  `json:"objective"` // the bound, in the statistic's unit
	Over      uint64   `json:"over"`      // binomial SLOs: calls over the bound, or failed
	Of        uint64   `json:"of"`        // of the calls measured
	Decision  string   `json:"decision"`  // meets or fails
	Weak      bool     `json:"weak,omitempty"`
	Why       string   `json:"why"`
}

// StepRecord is one step: its load, its calls, and the decision taken
// after it and why (a row of search.csv).
type StepRecord struct {
	Step int     `json:"step"` // from 1
	Load float64 `json:"load"`
	// From and To are the step's first and last second fed (Unix
	// seconds, Second.T; rest and warm-up included): the step's phase
	// of the run. 0 when unknown.
	From       int64       `json:"from"`
	To         int64       `json:"to"`
	Seconds    int         `json:"seconds"`           // seconds held
	RestS      int         `json:"rest_s,omitempty"`  // of them, resting (no load) after a failed step
	WarmupS    int         `json:"warmup_s"`          // of them, left out as warm-up
	Settled    bool        `json:"settled"`           // the warm-up ended with the throughput settled (not at its bound)
	Refused    int         `json:"refused,omitempty"` // seconds refused (Second.refused), not measured
	Calls      uint64      `json:"calls"`             // every call ended in the step's seconds
	Measured   uint64      `json:"measured"`          // of them, after the warm-up
	Throughput float64     `json:"throughput"`        // successful calls/s after the warm-up
	Decision   string      `json:"decision"`          // meets, fails or tester-limited
	Weak       bool        `json:"weak,omitempty"`    // by point estimate at the step's time limit
	Binding    string      `json:"binding,omitempty"` // the SLO that failed
	Why        string      `json:"why"`
	SLOs       []SLORecord `json:"slos"`
}
