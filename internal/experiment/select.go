package experiment

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Select is testbed.select: the testers' hosts chosen out of the
// testbed's candidates by their network toward the target (from the
// sensor mesh, experiment key sensors) and their idle CPU, checked before
// the run (docs/testbeds.md, docs/design/020-tester-selection.md).
type Select struct {
	// Testers is how many hosts to choose (0: schedule.testers ÷
	// testbed.testers_per_host, rounded up).
	Testers int `yaml:"testers,omitempty"`
	// MinBandwidth is the least bandwidth toward the target a chosen
	// host has: "50Mbit/s", "1Gbit/s", or bit/s as a number ("": none).
	MinBandwidth string `yaml:"min_bandwidth,omitempty"`
	// MaxLatency is the most latency toward the target (0: none).
	MaxLatency Duration `yaml:"max_latency,omitempty"`
	// MinIdleCPU is the least idle share of a host's CPU, checked on the
	// host just before the run (0: none).
	MinIdleCPU Percent `yaml:"min_idle_cpu,omitempty"`
	// Spread is SpreadSite (cover every site before a second host of
	// any) or SpreadHost (the default: sites play no part).
	Spread string `yaml:"spread,omitempty"`
	// Prefer orders the hosts that qualify: PreferNear (the default),
	// PreferFar or PreferDiverse.
	Prefer string `yaml:"prefer,omitempty"`
	// Probe asks the mesh to test a pair it has no figures for now
	// (default: true).
	Probe *bool `yaml:"probe,omitempty"`
	// AllowFewer runs with the hosts that qualify when fewer than
	// Testers do (default: the run is refused, naming why each host was
	// left out).
	AllowFewer bool `yaml:"allow_fewer,omitempty"`
}

// testbed.select's spreads and preferences.
const (
	SpreadSite    = "site"    // one host per site before a second of any
	SpreadHost    = "host"    // hosts in order of preference, whatever their site
	PreferNear    = "near"    // highest bandwidth first, then lowest latency
	PreferFar     = "far"     // highest latency first, then lowest bandwidth
	PreferDiverse = "diverse" // spread over the range of latencies
)

// MaxSelectLatency bounds testbed.select.max_latency: a latency beyond
// it is no link's.
const MaxSelectLatency = Duration(60e9)

// MaxBitRate bounds a bandwidth an experiment may give: 10 Tbit/s, past
// any host's link.
const MaxBitRate = 10e12

// SelectTesters is how many hosts testbed.select chooses: its testers,
// else one per testers_per_host testers (one on the local provider).
func (e *Experiment) SelectTesters() int {
	s := e.Testbed.Select
	switch {
	case s == nil:
		return 0
	case s.Testers > 0:
		return s.Testers
	case e.Testbed.Provider == ProviderLocal:
		return 1
	}
	per := max(e.Testbed.TestersPerHost, 1)
	return (e.Schedule.Testers + per - 1) / per
}

// SelectProbe reports whether testbed.select asks the mesh to test the
// pairs it has no figures for: select.probe, else whenever sensors is set.
func (e *Experiment) SelectProbe() bool {
	s := e.Testbed.Select
	if s == nil || e.Sensors == nil {
		return false
	}
	return s.Probe == nil || *s.Probe
}

// ParseBitRate reads a bit rate: a number with a unit of bit/s, kbit/s,
// Mbit/s, Gbit/s or Tbit/s ("50Mbit/s", "1.5 Gbit/s"), or a plain number
// of bit/s.
func ParseBitRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	if num, ok := strings.CutSuffix(t, "bit/s"); ok {
		t = strings.TrimSpace(num)
		if n := len(t); n > 0 {
			if m, ok := map[byte]float64{'k': 1e3, 'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}[t[n-1]]; ok {
				t, mult = strings.TrimSpace(t[:n-1]), m
			}
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a bit rate such as \"50Mbit/s\", \"1Gbit/s\" or a number of bit/s, got %q", s)
	}
	return f * mult, nil
}
