package experiment

import (
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Experiment)
		key    string // "" when the experiment is valid
		msg    string
	}{
		// The defaults plus a command are valid.
		{"valid", func(*Experiment) {}, "", ""},
		// An empty target is fine.
		{"empty target", func(e *Experiment) { e.Target = "" }, "", ""},
		// Zero start interval and client interval are fine.
		{"zero intervals", func(e *Experiment) { e.Schedule.TesterStartInterval, e.Schedule.ClientInterval = 0, 0 }, "", ""},
		// The smallest quantum allowed.
		{"min quantum", func(e *Experiment) { e.Analysis.Quantum = Duration(MinQuantum) }, "", ""},
		// Dots, dashes and underscores are fine in a name.
		{"name chars", func(e *Experiment) { e.Name = "a-b_c.1" }, "", ""},
		// A slash would leave the run directory.
		{"name slash", func(e *Experiment) { e.Name = "../x" }, "name", "may hold only"},
		// ".." is no directory name of its own.
		{"name dotdot", func(e *Experiment) { e.Name = ".." }, "name", `must not be ".."`},
		// An empty name.
		{"name empty", func(e *Experiment) { e.Name = "" }, "name", "must not be empty"},
		// No command.
		{"no client", func(e *Experiment) { e.Client.Exec = nil }, "client", "give exactly one of exec, http"},
		// An empty program name.
		{"empty program", func(e *Experiment) { e.Client.Exec = []string{""} }, "client.exec[0]", "must not be empty"},
		// A zero timeout.
		{"zero timeout", func(e *Experiment) { e.Client.Timeout = 0 }, "client.timeout", "must be more than zero"},
		// A negative timeout.
		{"negative timeout", func(e *Experiment) { e.Client.Timeout = Duration(-time.Second) }, "client.timeout", "must not be negative, got -1s"},
		// An ssh testbed with nowhere to go.
		{"ssh", func(e *Experiment) { e.Testbed.Provider = "ssh" }, "testbed.hosts", "the ssh provider needs hosts"},
		// slurm and join need nothing more.
		{"slurm", func(e *Experiment) { e.Testbed.Provider = "slurm" }, "", ""},
		{"join", func(e *Experiment) { e.Testbed.Provider = "join" }, "", ""},
		// An unknown provider.
		{"unknown provider", func(e *Experiment) { e.Testbed.Provider = "k8s" }, "testbed.provider", "must be one of local, ssh, slurm or join"},
		// No testers per host.
		{"testers per host", func(e *Experiment) { e.Testbed.TestersPerHost = 0 }, "testbed.testers_per_host", "at least 1"},
		// No testers.
		{"testers", func(e *Experiment) { e.Schedule.Testers = -1 }, "schedule.testers", "at least 1, got -1"},
		// A negative start interval.
		{"start interval", func(e *Experiment) { e.Schedule.TesterStartInterval = -1 }, "schedule.tester_start_interval", "must not be negative"},
		// A zero tester duration.
		{"tester duration", func(e *Experiment) { e.Schedule.TesterDuration = 0 }, "schedule.tester_duration", "more than zero"},
		// A negative client interval.
		{"client interval", func(e *Experiment) { e.Schedule.ClientInterval = Duration(-time.Millisecond) }, "schedule.client_interval", "got -1ms"},
		// A zero sync interval.
		{"sync", func(e *Experiment) { e.Sync.Interval = 0 }, "sync.interval", "more than zero"},
		// Too fine a quantum.
		{"quantum", func(e *Experiment) { e.Analysis.Quantum = Duration(time.Millisecond) }, "analysis.quantum", "at least 10ms"},
		// A negative quantum is reported once, as negative.
		{"negative quantum", func(e *Experiment) { e.Analysis.Quantum = -1 }, "analysis.quantum", "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := withExec()
			tt.change(&e)
			ps := e.Validate()
			if tt.key == "" {
				if len(ps) != 0 {
					t.Errorf("got %v, want no problems", ps)
				}
				return
			}
			if len(ps) != 1 || ps[0].Key != tt.key || ps[0].Line != 0 || !strings.Contains(ps[0].Msg, tt.msg) {
				t.Errorf("got %v, want one problem with %s: %q", ps, tt.key, tt.msg)
			}
		})
	}
}

func TestSyncAndClockKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		// a transport we do not have
		{"transport", "client:\n  exec: [x]\nsync:\n  transport: carrier-pigeon\n", "exp.yaml:4: sync.transport"},
		// a controller mode we do not have
		{"mode", "client:\n  exec: [x]\ncontroller:\n  mode: tape\n", "exp.yaml:4: controller.mode"},
		// a sample transport we do not have
		{"sample transport", "client:\n  exec: [x]\ncontroller:\n  mode: memory\n  transport: sctp\n", "exp.yaml:5: controller.transport"},
		// too many probes
		{"probes", "client:\n  exec: [x]\nsync:\n  probes: 1000\n", "exp.yaml:4: sync.probes"},
		// a negative injected skew
		{"skew", "client:\n  exec: [x]\ntestbed:\n  clock_skew: -3m\n", "exp.yaml:4: testbed.clock_skew"},
		// drift is a number
		{"drift type", "client:\n  exec: [x]\ntestbed:\n  clock_drift_ppm: lots\n", "exp.yaml:4: testbed.clock_drift_ppm: want a number"},
		// synchronized_start is a bool
		{"bool type", "client:\n  exec: [x]\nschedule:\n  synchronized_start: maybe\n", "exp.yaml:4: schedule.synchronized_start: want true or false"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.body), "exp.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
	e, err := Parse([]byte("client:\n  exec: [x]\ntestbed:\n  clock_skew: 3m\n  clock_drift_ppm: 30\nschedule:\n  synchronized_start: true\nsync:\n  transport: tcp\n"), "exp.yaml")
	if err != nil || e.Testbed.ClockSkew.D() != 3*time.Minute || e.Testbed.ClockDriftPPM != 30 || !e.Schedule.SynchronizedStart || e.Sync.Transport != SyncTCP {
		t.Fatalf("%+v %v", e, err)
	}
}
