// Package placement chooses a run's tester hosts out of its candidates
// (testbed.select, docs/design/020-tester-selection.md): by their
// bandwidth and latency toward the target, from the sensor mesh, and by
// their idle CPU, checked on each host before the run. Choose is pure:
// the same candidates and rules give the same hosts, in the same order,
// with the same reason for every candidate, chosen or left out. Gather
// reads the figures through small interfaces (Mesh, ProbeRunner,
// CPUProber), so that the controller decides where they come from.
package placement

import (
	"math"

	"github.com/diperf/diperf/internal/experiment"
)

// Link is what the mesh says of a candidate's path toward the target.
type Link struct {
	BandwidthBps float64 // bit/s toward the target; 0: not known
	LatencyMs    float64 // ms toward the target; 0: not known
	// ErrBps is the bandwidth forecast's expected error (NaN or 0: not
	// known).
	ErrBps float64
	// Basis says where the figures come from: "measured", "estimated
	// via NAME" (along the sensor hierarchy), "probed now".
	Basis string
	// Usable is false for a figure that must not be used (an estimate
	// whose error is not known, such as one taken from the reverse
	// direction): the candidate is then probed, or left out.
	Usable bool
}

// Candidate is one host the testers may run on, with its figures.
type Candidate struct {
	Host string // as the testbed names it
	Site string // its sensor's site ("": not known, a site of its own)
	// Link is its path toward the target (nil: no figures, NoLink says
	// why).
	Link   *Link
	NoLink string
	// IdleCPU is the idle share of its CPU, in percent, checked just now
	// (NaN: not checked, NoCPU says why).
	IdleCPU float64
	NoCPU   string
}

// Rules are testbed.select's, resolved.
type Rules struct {
	Testers      int     // hosts to choose
	MinBps       float64 // least bandwidth (0: none)
	MaxLatencyMs float64 // most latency (0: none)
	MinIdleCPU   float64 // least idle CPU, percent (0: none)
	Spread       string  // experiment.SpreadSite or SpreadHost ("": host)
	Prefer       string  // experiment.PreferNear, Far or Diverse ("": near)
	// Network says the mesh's figures are required (the sensors key is
	// set): a candidate without them is left out.
	Network bool
}

// RulesOf resolves an experiment's testbed.select (nil when it has none).
func RulesOf(e *experiment.Experiment) *Rules {
	s := e.Testbed.Select
	if s == nil {
		return nil
	}
	r := &Rules{Testers: e.SelectTesters(), MaxLatencyMs: float64(s.MaxLatency.D().Microseconds()) / 1e3,
		MinIdleCPU: float64(s.MinIdleCPU), Spread: s.Spread, Prefer: s.Prefer, Network: e.Sensors != nil}
	if s.MinBandwidth != "" {
		r.MinBps, _ = experiment.ParseBitRate(s.MinBandwidth) // validated
	}
	return r
}

// Decision is one candidate's outcome.
type Decision struct {
	Candidate
	Chosen bool
	Order  int    // 1, 2, ... in order of choice; 0 when left out
	Reason string // why it was chosen or left out
}

// Result is a choice: every candidate's decision, the chosen first in
// order of choice, then the rest by host name.
type Result struct {
	Decisions []Decision
	Chosen    []string // the hosts chosen, in order
}

// Short reports whether fewer hosts than asked were chosen.
func (r Result) Short(rules Rules) bool { return len(r.Chosen) < rules.Testers }

// cpuKnown reports whether c's idle CPU was checked.
func (c Candidate) cpuKnown() bool { return !math.IsNaN(c.IdleCPU) }

// bandwidth and latency are c's figures (0 when not known).
func (c Candidate) bandwidth() float64 {
	if c.Link == nil {
		return 0
	}
	return c.Link.BandwidthBps
}

func (c Candidate) latency() float64 {
	if c.Link == nil {
		return 0
	}
	return c.Link.LatencyMs
}

// siteKey is the site c counts for: its own host when its site is not
// known.
func (c Candidate) siteKey() string {
	if c.Site == "" {
		return "host " + c.Host
	}
	return c.Site
}
