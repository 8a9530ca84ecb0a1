package experiment

import (
	"strings"
	"testing"
	"time"
)

func TestMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	odd := exampleWant()
	odd.Target = "~"
	odd.Client.Exec = []string{"sh", "-c", "echo 'a: b' # c", "123", "true", "", "null"}
	odd.Testbed.Hosts = []string{"h1", "h2:22"}
	odd.Testbed.Deploy = []string{"./bin/client"}
	odd.Schedule.ClientInterval = 0
	odd.Analysis.Quantum = Duration(1500 * time.Microsecond)
	tests := []struct {
		name string
		exp  Experiment
	}{
		{"example", exampleWant()}, // the documented example
		{"defaults", withExec()},   // nothing but defaults and a command
		{"odd values", odd},        // strings that need quoting, odd durations
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := tt.exp.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, _ := Parse(out, "out.yaml") // odd values may not validate
			if !sameValues(*back, tt.exp) {
				t.Errorf("round trip changed the experiment:\n%s\ngot  %+v\nwant %+v", out, *back, tt.exp)
			}
		})
	}
}

func TestMarshalKeyOrder(t *testing.T) {
	t.Parallel()
	e := exampleWant()
	out, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"name:", "target:", "client:", "  exec:", "  timeout:", "testbed:", "  provider:",
		"  hosts:", "  testers_per_host:", "  deploy:", "schedule:", "  testers:", "  tester_start_interval:",
		"  tester_duration:", "  client_interval:", "sync:", "  interval:", "analysis:", "  quantum:"}
	rest := string(out)
	for _, k := range keys {
		i := strings.Index(rest, "\n"+k)
		if !strings.HasPrefix(rest, k) && i < 0 {
			t.Fatalf("key %q missing or out of order in\n%s", k, out)
		}
		rest = rest[max(i, 0)+1:]
	}
}
