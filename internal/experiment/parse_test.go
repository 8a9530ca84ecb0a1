package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseExample(t *testing.T) {
	t.Parallel()
	got, err := Parse(example(t), "exp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := exampleWant(); !sameValues(*got, want) {
		t.Errorf("got  %+v\nwant %+v", *got, want)
	}
	if line := got.lines["schedule.testers"]; line != 12 {
		t.Errorf("schedule.testers recorded on line %d, want 12", line)
	}
}

func TestParseOverlaysDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want func(*Experiment)
	}{
		// Only the command given: every other value is a default.
		{"exec only", "client:\n  exec: [true]\n", func(*Experiment) {}},
		// A bare number of seconds is a duration.
		{"seconds int", "client: {exec: [x]}\nschedule: {tester_duration: 90}\n",
			func(e *Experiment) { e.Schedule.TesterDuration = Duration(90 * time.Second) }},
		// A fractional number of seconds too.
		{"seconds float", "client: {exec: [x]}\nanalysis: {quantum: 0.25}\n",
			func(e *Experiment) { e.Analysis.Quantum = Duration(250 * time.Millisecond) }},
		// A null value keeps the default.
		{"null keeps default", "client: {exec: [x]}\nname:\nschedule: ~\n", func(*Experiment) {}},
		// Zero client interval means back-to-back.
		{"zero interval", "client: {exec: [x]}\nschedule: {client_interval: 0}\n",
			func(e *Experiment) { e.Schedule.ClientInterval = 0 }},
		// Many clients per tester, staggered.
		{"clients per tester", "client: {exec: [x]}\nschedule: {clients_per_tester: 50, client_start_interval: 20ms}\n",
			func(e *Experiment) {
				e.Schedule.ClientsPerTester, e.Schedule.ClientStartInterval = 50, Duration(20*time.Millisecond)
			}},
		// Aliases are followed.
		{"alias", "client: {exec: [x], timeout: &t 7s}\nsync: {interval: *t}\n",
			func(e *Experiment) {
				e.Client.Timeout, e.Sync.Interval = Duration(7*time.Second), Duration(7*time.Second)
			}},
		// Scalars of any type read as strings.
		{"number as string", "client: {exec: [sleep, 1]}\nname: 2024\n",
			func(e *Experiment) { e.Client.Exec = []string{"sleep", "1"}; e.Name = "2024" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.in), "exp.yaml")
			if err != nil {
				t.Fatal(err)
			}
			want := withExec()
			want.Client.Exec = got.Client.Exec
			tt.want(&want)
			if !sameValues(*got, want) {
				t.Errorf("got  %+v\nwant %+v", *got, want)
			}
		})
	}
}

func TestParseEmpty(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
	}{
		{"empty", ""},                      // no bytes at all
		{"comments", "# nothing here\n\n"}, // no document
		{"null document", "---\n~\n"},      // a document holding null
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.in), "exp.yaml")
			if got == nil || !sameValues(*got, Default()) {
				t.Fatalf("got %+v, want the defaults", got)
			}
			// The defaults have no client command; that is the only problem.
			ps := problems(t, err)
			if len(ps) != 1 || ps[0].Key != "client" || ps[0].Line != 0 {
				t.Errorf("problems %v, want only client without a line", ps)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(path, example(t), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil || !sameValues(*got, exampleWant()) {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	if _, err := Load(path + ".missing"); err == nil || !strings.Contains(err.Error(), ".missing") {
		t.Errorf("Load of a missing file: %v", err)
	}
}
