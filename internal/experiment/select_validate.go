package experiment

import (
	"fmt"
	"time"
)

// selectKey is the key of testbed.select, where its problems are cited
// when their own key has no line.
const selectKey = "testbed.select"

// selection checks testbed.select: a provider whose hosts it can choose
// among, the sensor mesh for the network's criteria, and each value.
func (v *validator) selection() {
	s := v.e.Testbed.Select
	if s == nil {
		return
	}
	if p := v.e.Testbed.Provider; p != ProviderSSH && p != ProviderLocal {
		v.addAt(selectKey, selectKey, fmt.Sprintf("chooses among the hosts of the %s and %s providers, and this experiment's is %q",
			ProviderSSH, ProviderLocal, p))
	}
	v.selectCount(s)
	v.selectNetwork(s)
	if p := float64(s.MinIdleCPU); p < 0 || p > 100 {
		v.addAt(selectKey+".min_idle_cpu", selectKey, fmt.Sprintf("must lie in [0%%, 100%%], got %g%%", p))
	}
	if sp := s.Spread; sp != "" && sp != SpreadSite && sp != SpreadHost {
		v.addAt(selectKey+".spread", selectKey, fmt.Sprintf("must be %s or %s, got %q", SpreadSite, SpreadHost, sp))
	}
	if pr := s.Prefer; pr != "" && pr != PreferNear && pr != PreferFar && pr != PreferDiverse {
		v.addAt(selectKey+".prefer", selectKey, fmt.Sprintf("must be %s, %s or %s, got %q", PreferNear, PreferFar, PreferDiverse, pr))
	}
}

// selectCount checks how many hosts are chosen: enough for the
// schedule's testers at testers_per_host each, and no host without one.
func (v *validator) selectCount(s *Select) {
	key, n := selectKey+".testers", s.Testers
	per := max(v.e.Testbed.TestersPerHost, 1)
	testers := v.e.Schedule.Testers
	switch {
	case n < 0 || n > MaxTesters:
		v.addAt(key, selectKey, fmt.Sprintf("must be 0 (schedule.testers ÷ testbed.testers_per_host) to %d, got %d", MaxTesters, n))
	case n > 1 && v.e.Testbed.Provider == ProviderLocal:
		v.addAt(key, selectKey, fmt.Sprintf("the %s provider has one host, this machine: at most 1, got %d", ProviderLocal, n))
	case n == 0 || v.e.Testbed.Provider == ProviderLocal:
	case n*per < testers:
		v.addAt(key, selectKey, fmt.Sprintf("%d hosts × testbed.testers_per_host %d hold %d testers, fewer than schedule.testers %d: "+
			"choose at least %d hosts", n, per, n*per, testers, (testers+per-1)/per))
	case (n-1)*per >= testers:
		v.addAt(key, selectKey, fmt.Sprintf("%d hosts × testbed.testers_per_host %d: the last host chosen would have no tester "+
			"of the %d (schedule.testers); choose at most %d", n, per, testers, (testers+per-1)/per))
	}
	tb := v.e.Testbed
	if m := v.e.SelectTesters(); tb.Provider == ProviderSSH && tb.HostsFile == "" && len(tb.Hosts) > 0 && m > len(tb.Hosts) && n >= 0 {
		v.addAt(key, selectKey, fmt.Sprintf("chooses %d hosts (schedule.testers ÷ testers_per_host, or select.testers) out of the %d of testbed.hosts: "+
			"list more hosts, or run fewer testers", m, len(tb.Hosts)))
	}
}

// selectNetwork checks the network's criteria and that the sensor mesh
// that gives their figures is set.
func (v *validator) selectNetwork(s *Select) {
	var uses []string
	if s.MinBandwidth != "" {
		uses = append(uses, "min_bandwidth")
		if bps, err := ParseBitRate(s.MinBandwidth); err != nil {
			v.addAt(selectKey+".min_bandwidth", selectKey, err.Error())
		} else if bps <= 0 || bps > MaxBitRate {
			v.addAt(selectKey+".min_bandwidth", selectKey, fmt.Sprintf("must lie above 0 and at most 10 Tbit/s, got %q", s.MinBandwidth))
		}
	}
	if s.MaxLatency != 0 {
		uses = append(uses, "max_latency")
		if s.MaxLatency < 0 || s.MaxLatency > MaxSelectLatency {
			v.addAt(selectKey+".max_latency", selectKey, fmt.Sprintf("must lie above 0 and at most %v, got %v", time.Duration(MaxSelectLatency), s.MaxLatency))
		}
	}
	if s.Prefer != "" {
		uses = append(uses, "prefer")
	}
	if s.Spread == SpreadSite {
		uses = append(uses, "spread: site")
	}
	if s.Probe != nil && *s.Probe {
		uses = append(uses, "probe")
	}
	if len(uses) > 0 && v.e.Sensors == nil {
		verb := "need"
		if len(uses) == 1 {
			verb = "needs"
		}
		v.addAt(selectKey, selectKey, fmt.Sprintf("%s %s the sensor mesh's figures (and sites): set the sensors key (directory, token_file, target; docs/sensors.md)",
			joinAnd(uses), verb))
	}
}

// joinAnd joins names as "a, b and c".
func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := names[0]
	for _, n := range names[1 : len(names)-1] {
		out += ", " + n
	}
	return out + " and " + names[len(names)-1]
}
