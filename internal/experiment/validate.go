package experiment

import (
	"fmt"
	"time"
)

// Validate checks the values of e and returns every problem found, citing
// the line each key was set on, or line 0 for a value from the defaults.
func (e *Experiment) Validate() []Problem {
	v := validator{e: e}
	v.name()
	v.client()
	v.positive("client.timeout", e.Client.Timeout)
	v.killGrace()
	v.provider()
	v.count("testbed.testers_per_host", e.Testbed.TestersPerHost)
	v.remote()
	v.failurePolicy()
	v.testers()
	v.clients()
	v.positive("schedule.tester_duration", e.Schedule.TesterDuration)
	v.notNegative("schedule.client_interval", e.Schedule.ClientInterval)
	v.rate()
	v.positive("sync.interval", e.Sync.Interval)
	v.syncAndClock()
	v.sensors()
	v.monitor()
	v.thresholds()
	v.search()
	v.selection()
	if v.notNegative("analysis.quantum", e.Analysis.Quantum) && e.Analysis.Quantum.D() < MinQuantum {
		v.add("analysis.quantum", fmt.Sprintf("must be at least %v, got %v", MinQuantum, e.Analysis.Quantum))
	}
	return v.problems
}

// testers checks the number of testers and how fast they are started:
// at most MaxTesters (MaxLocalTesters on this machine), and a ramp-up of
// at most MaxDuration.
func (v *validator) testers() {
	s := v.e.Schedule
	okCount := v.count("schedule.testers", s.Testers)
	if okCount && v.e.Testbed.Provider == ProviderLocal && s.Testers > MaxLocalTesters {
		v.add("schedule.testers", fmt.Sprintf("at most %d testers run on the %q provider, every one a process of this machine, got %d; "+
			"spread them over more hosts (another testbed.provider)", MaxLocalTesters, ProviderLocal, s.Testers))
	}
	if v.notNegative("schedule.tester_start_interval", s.TesterStartInterval) && okCount &&
		s.TesterStartInterval.D() <= MaxDuration && s.Testers > 1 && s.TesterStartInterval.D() > MaxDuration/time.Duration(s.Testers-1) {
		v.add("schedule.tester_start_interval", fmt.Sprintf("the ramp-up, (testers − 1) × tester_start_interval = %d × %v, must be at most %v",
			s.Testers-1, s.TesterStartInterval, maxDurationText))
	}
}

// clients checks the clients per tester, at most MaxClientsPerTester,
// and their ramp-up, at most MaxDuration.
func (v *validator) clients() {
	s := v.e.Schedule
	ok := true
	switch n := s.ClientsPerTester; {
	case n < 1:
		v.add("schedule.clients_per_tester", fmt.Sprintf("must be at least 1, got %d", n))
		ok = false
	case n > MaxClientsPerTester:
		v.add("schedule.clients_per_tester", fmt.Sprintf("must be at most %d, got %d; run more testers instead", MaxClientsPerTester, n))
		ok = false
	}
	if v.notNegative("schedule.client_start_interval", s.ClientStartInterval) && ok &&
		s.ClientsPerTester > 1 && s.ClientStartInterval.D() > MaxDuration/time.Duration(s.ClientsPerTester-1) {
		v.add("schedule.client_start_interval", fmt.Sprintf("the clients' ramp-up, (clients_per_tester − 1) × client_start_interval = %d × %v, must be at most %s",
			s.ClientsPerTester-1, s.ClientStartInterval, maxDurationText))
	}
}

// count reports an n below 1 or above MaxTesters, and returns whether n
// is fine.
func (v *validator) count(key string, n int) bool {
	switch {
	case n < 1:
		v.add(key, fmt.Sprintf("must be at least 1, got %d", n))
	case n > MaxTesters:
		v.add(key, fmt.Sprintf("must be at most %d, got %d", MaxTesters, n))
	default:
		return true
	}
	return false
}

// validator collects the problems Validate finds.
type validator struct {
	e        *Experiment
	problems []Problem
}

// add records a problem with key, at the line the key was set on.
func (v *validator) add(key, msg string) {
	v.problems = append(v.problems, Problem{File: v.e.file, Line: v.e.lines[key], Key: key, Msg: msg})
}

// maxDurationText is MaxDuration as the messages give it.
const maxDurationText = "720h (30 days)"

// notNegative reports a negative d, or one above MaxDuration, and returns
// whether d is fine.
func (v *validator) notNegative(key string, d Duration) bool {
	switch {
	case d < 0:
		v.add(key, fmt.Sprintf("must not be negative, got %v", d))
	case d.D() > MaxDuration:
		v.add(key, fmt.Sprintf("must be at most %s, got %v", maxDurationText, d))
	default:
		return true
	}
	return false
}

// positive reports a d that is not above zero.
func (v *validator) positive(key string, d Duration) {
	if v.notNegative(key, d) && d == 0 {
		v.add(key, "must be more than zero, got 0s")
	}
}

// killGrace checks client.kill_grace: 0 (SIGKILL at once) to
// MaxKillGrace.
func (v *validator) killGrace() {
	if g := v.e.Client.KillGrace; v.notNegative("client.kill_grace", g) && g.D() > MaxKillGrace {
		v.add("client.kill_grace", fmt.Sprintf("must be at most %v (a client asked to stop has that long before SIGKILL), got %v", MaxKillGrace, g))
	}
}

// name checks that the name can be part of a directory name.
func (v *validator) name() {
	n := v.e.Name
	switch {
	case n == "":
		v.add("name", "must not be empty")
	case n == "." || n == "..":
		v.add("name", fmt.Sprintf("must not be %q", n))
	case !nameChars(n):
		v.add("name", fmt.Sprintf("may hold only letters, digits, '-', '_' and '.', got %q", n))
	}
}

// nameChars reports whether s holds only ASCII letters, digits, '-', '_'
// and '.'.
func nameChars(s string) bool {
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// provider checks testbed.provider against the known providers.
func (v *validator) provider() {
	if err := CheckProvider(v.e.Testbed.Provider); err != nil {
		v.add("testbed.provider", err.Error())
	}
}

// CheckProvider returns nil for a testbed provider this build runs, and
// for any other the one message both Validate and the testbed factory
// show.
func CheckProvider(p string) error {
	switch p {
	case ProviderLocal, ProviderSSH, ProviderSlurm, ProviderJoin:
		return nil
	}
	return fmt.Errorf("must be one of %s, %s, %s or %s, got %q",
		ProviderLocal, ProviderSSH, ProviderSlurm, ProviderJoin, p)
}

// syncAndClock checks the time-server settings and the test-only clock
// injection.
func (v *validator) syncAndClock() {
	e := v.e
	if r := e.Controller.Relays; r != nil && (*r < 0 || *r > MaxRelays) {
		v.add("controller.relays", fmt.Sprintf("must be 0 to %d, got %d", MaxRelays, *r))
	}
	if r := e.Controller.Relays; r != nil && *r > 0 && e.Testbed.Provider == ProviderSSH {
		v.add("controller.relays", "has no use with the ssh testbed: its testers reach the controller over their SSH sessions, not its listener")
	}
	if m := e.Controller.Mode; m != "" && m != ModeDisk && m != ModeMemory {
		v.add("controller.mode", fmt.Sprintf("must be %s or %s, got %q", ModeDisk, ModeMemory, m))
	}
	if m := e.Controller.MemoryLimitMB; m < 0 || m > MaxMemoryLimitMB {
		v.add("controller.memory_limit_mb", fmt.Sprintf("must be 0 (the default, %d) to %d, got %d", DefaultMemoryLimitMB, MaxMemoryLimitMB, m))
	}
	if t := e.Controller.Transport; t != "" && t != TransportTCP && t != TransportUDP {
		v.add("controller.transport", fmt.Sprintf("must be %s or %s, got %q", TransportTCP, TransportUDP, t))
	}
	if t := e.Sync.Transport; t != SyncUDP && t != SyncTCP {
		v.add("sync.transport", fmt.Sprintf("must be %s or %s, got %q", SyncUDP, SyncTCP, t))
	}
	if p := e.Sync.Probes; p < 1 || p > MaxSyncProbes {
		v.add("sync.probes", fmt.Sprintf("must be 1 to %d, got %d", MaxSyncProbes, p))
	}
	v.notNegative("testbed.clock_skew", e.Testbed.ClockSkew)
	if d := e.Testbed.ClockDriftPPM; d < 0 || d > MaxClockDriftPPM {
		v.add("testbed.clock_drift_ppm", fmt.Sprintf("must be 0 to %d, got %v", MaxClockDriftPPM, d))
	}
}
