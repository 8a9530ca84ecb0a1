package experiment

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestUpperBounds checks that every duration, the tester counts and the
// ramp-up have an upper bound, reported as file:line: key.
func TestUpperBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string // appended to base, so its first line is 3
		line int
		key  string
		msg  string
	}{
		// Row 9 of issue 8: it overflowed into a 0.1 s run.
		{"tester duration", "schedule:\n  tester_duration: 2000000h\n", 4, "schedule.tester_duration", "must be at most 720h (30 days), got 2000000h0m0s"},
		{"tester duration in seconds", "schedule: {tester_duration: 1e9}\n", 3, "schedule.tester_duration", "must be at most 720h"},
		{"client timeout", "client: {exec: [true], timeout: 721h}\n", 2, "client.timeout", "must be at most 720h"},
		{"start interval", "schedule:\n  testers: 2\n  tester_start_interval: 800h\n", 5, "schedule.tester_start_interval", "must be at most 720h"},
		{"client interval", "schedule:\n\n  client_interval: 9999h\n", 5, "schedule.client_interval", "must be at most 720h"},
		{"sync interval", "sync: {interval: 1000h}\n", 3, "sync.interval", "must be at most 720h"},
		{"quantum", "analysis: {quantum: 100000h}\n", 3, "analysis.quantum", "must be at most 720h"},
		{"clock skew", "testbed: {clock_skew: 31000h}\n", 3, "testbed.clock_skew", "must be at most 720h"},
		// Row 10: a trillion testers were accepted and forked.
		{"testers", "schedule:\n  testers: 1000000000000\n", 4, "schedule.testers", "must be at most 1000000, got 1000000000000"},
		{"testers per host", "testbed:\n  testers_per_host: 1000001\n", 4, "testbed.testers_per_host", "must be at most 1000000"},
		{"clients per tester", "schedule:\n  clients_per_tester: 100001\n", 4, "schedule.clients_per_tester", "must be at most 100000, got 100001"},
		{"no clients", "schedule: {clients_per_tester: 0}\n", 3, "schedule.clients_per_tester", "must be at least 1, got 0"},
		{"client start interval", "schedule:\n  client_start_interval: 721h\n", 4, "schedule.client_start_interval", "must be at most 720h"},
		{"negative client start interval", "schedule:\n  client_start_interval: -1s\n", 4, "schedule.client_start_interval", "must not be negative"},
		{"clients' ramp-up", "schedule:\n  clients_per_tester: 100000\n  client_start_interval: 26s\n", 5,
			"schedule.client_start_interval", "(clients_per_tester − 1) × client_start_interval = 99999 × 26s, must be at most 720h"},
		// Within MaxTesters but too many processes for one machine.
		{"local testers", "schedule:\n  testers: 10001\n", 4, "schedule.testers", "spread them over more hosts"},
		// Each within bounds, together a ramp-up of 10000 × 1h.
		{"ramp-up", "schedule:\n  testers: 10001\n  tester_start_interval: 1h\ntestbed: {provider: local}\n", 5,
			"schedule.tester_start_interval", "the ramp-up, (testers − 1) × tester_start_interval = 10000 × 1h0m0s, must be at most 720h"},
	}
	for _, tt := range tests {
		in := base + tt.in
		if strings.HasPrefix(tt.in, "client:") { // in place of base's, on line 2
			in = strings.Replace(in, "client: {exec: [true]}\n", "", 1)
		}
		_, err := Parse([]byte(in), "exp.yaml")
		if err == nil {
			t.Errorf("%s: accepted", tt.name)
			continue
		}
		found := false
		for _, p := range problems(t, err) {
			if p.Line == tt.line && p.Key == tt.key && strings.Contains(p.Msg, tt.msg) &&
				strings.HasPrefix(p.String(), "exp.yaml:"+strconv.Itoa(tt.line)+": "+tt.key+": ") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: got\n%v\nwant exp.yaml:%d: %s: …%s…", tt.name, err, tt.line, tt.key, tt.msg)
		}
	}
}

// TestBoundsAreInclusive checks that the bounds themselves are accepted.
func TestBoundsAreInclusive(t *testing.T) {
	t.Parallel()
	in := base + "client: {exec: [true], timeout: 720h}\nschedule:\n  testers: 10000\n  tester_start_interval: 259s\n" +
		"  clients_per_tester: 100000\n  client_start_interval: 25s\n" +
		"  tester_duration: 720h\n  client_interval: 720h\ntestbed: {testers_per_host: 1000000, clock_skew: 720h}\n" +
		"sync: {interval: 720h}\nanalysis: {quantum: 720h}\n"
	in = strings.Replace(in, "client: {exec: [true]}\n", "", 1)
	if _, err := Parse([]byte(in), "exp.yaml"); err != nil {
		t.Fatalf("bounds refused: %v", err)
	}
	if got := Duration(MaxDuration).String(); !strings.HasPrefix(maxDurationText, strings.TrimSuffix(got, "0m0s")) {
		t.Errorf("messages say %q, MaxDuration is %s", maxDurationText, got)
	}
	e := withExec()
	e.Schedule.TesterStartInterval = Duration(time.Second)
	e.Schedule.Testers = MaxLocalTesters
	if p := e.Validate(); len(p) != 0 {
		t.Errorf("MaxLocalTesters testers a second apart: %v", p)
	}
}
