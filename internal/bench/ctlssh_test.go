package bench

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// TestSSHExperiment writes an experiment the parser takes, whose clients
// together make the benchmark's rate.
func TestSSHExperiment(t *testing.T) {
	o := SSHOptions{ControllerOptions: ControllerOptions{Rate: 100_000, Duration: time.Minute, Mode: "memory"},
		Hosts: []string{"root@10.0.0.2", "root@10.0.0.3:2222"}, IdentityFile: "/k/id", KnownHosts: "/k/known",
		TestersPerHost: 5, ClientsPerTester: 1000}
	o.Testers = len(o.Hosts) * o.TestersPerHost
	exp, err := experiment.Parse([]byte(sshExperiment(o)), "bench.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, sshExperiment(o))
	}
	s, tb := exp.Schedule, exp.Testbed
	if s.Testers != 10 || s.ClientsPerTester != 1000 || s.ClientInterval.D() != 100*time.Millisecond ||
		s.TesterDuration.D() != time.Minute || !s.SynchronizedStart {
		t.Errorf("schedule %+v", s)
	}
	if tb.Provider != experiment.ProviderSSH || len(tb.Hosts) != 2 || tb.Hosts[1] != "root@10.0.0.3:2222" ||
		tb.TestersPerHost != 5 || tb.IdentityFile != "/k/id" || tb.KnownHosts != "/k/known" {
		t.Errorf("testbed %+v", tb)
	}
	if exp.Controller.Mode != "memory" {
		t.Errorf("controller.mode %q", exp.Controller.Mode)
	}
	if got := (SSHOptions{ControllerOptions: ControllerOptions{Rate: 3}, Hosts: []string{"h"}, TestersPerHost: 1, ClientsPerTester: 1}).Interval(); got != time.Second/3 {
		t.Errorf("1 client at 3/s: interval %v", got)
	}
}
