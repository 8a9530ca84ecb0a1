package experiment

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func FuzzParse(f *testing.F) {
	f.Add(example(f))
	f.Add([]byte(""))
	f.Add([]byte(base + "schedule:\n  testers: twenty\n  testerz: 1\n"))
	f.Add([]byte("a: &x [*x]\nclient: &c {exec: *c}\n"))
	f.Add([]byte("- 1\n---\n{}\n"))
	f.Add([]byte("sync: {interval: 1e300}\nanalysis: {quantum: -.5}\n"))
	f.Add([]byte(base + "thresholds:\n  - p99_ms < 250\n  - {check: \"error_rate < 1%\", over: last 30s, abort: true, for: 5s}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		exp, err := Parse(data, "fuzz.yaml")
		if exp == nil {
			t.Fatal("Parse returned a nil experiment")
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("error %v is not an *Error with problems", err)
			}
			return
		}
		out, err := exp.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(out, "out.yaml")
		if err != nil || !sameValues(*back, *exp) {
			t.Fatalf("round trip: %v\n%s", err, out)
		}
	})
}

// FuzzExperiment parses arbitrary bytes as an experiment file: it never
// panics, every problem names the file and a line (or is a key the file
// did not set, whose value is a default, or a YAML error the parser could
// not place), and whatever is accepted is within the upper bounds.
func FuzzExperiment(f *testing.F) {
	f.Add(example(f))
	f.Add([]byte(base + "schedule:\n  tester_duration: 2000000h\n"))
	f.Add([]byte(base + "schedule: {testers: 1000000000000, tester_start_interval: 0}\n"))
	f.Add([]byte(base + "schedule: {testers: 10000, tester_start_interval: 300s}\n"))
	f.Add([]byte(base + "sync: {interval: 9.2e9}\ntestbed: {clock_skew: 720h, testers_per_host: -1}\n"))
	f.Add([]byte("\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "dir/exp.yaml" // Load is ReadFile and Parse
		exp, err := Parse(data, path)
		if err != nil {
			checkProblems(t, exp, err, path)
			return
		}
		checkBounds(t, exp)
	})
}

// checkProblems checks that every problem of err names path and, where
// the file set the key, its line.
func checkProblems(t *testing.T, exp *Experiment, err error, path string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || len(e.Problems) == 0 {
		t.Fatalf("error %v is not an *Error with problems", err)
	}
	for _, p := range e.Problems {
		if p.File != path || !strings.HasPrefix(p.String(), path) {
			t.Errorf("problem %q does not name the file", p)
		}
		if p.Line > 0 {
			continue
		}
		fromDefault := p.Key != "" && exp.lines[p.Key] == 0
		unplaced := p.Key == "" && strings.HasPrefix(p.Msg, "invalid YAML")
		if !fromDefault && !unplaced {
			t.Errorf("problem %q names no line", p)
		}
	}
}

// checkBounds checks an accepted experiment against the upper bounds.
func checkBounds(t *testing.T, e *Experiment) {
	t.Helper()
	for _, d := range []Duration{e.Client.Timeout, e.Schedule.TesterStartInterval, e.Schedule.TesterDuration,
		e.Schedule.ClientInterval, e.Sync.Interval, e.Testbed.ClockSkew, e.Analysis.Quantum} {
		if d < 0 || d.D() > MaxDuration {
			t.Errorf("accepted a duration of %v", d)
		}
	}
	s := e.Schedule
	if s.Testers < 1 || s.Testers > MaxLocalTesters || e.Testbed.TestersPerHost > MaxTesters ||
		time.Duration(s.Testers-1)*s.TesterStartInterval.D() > MaxDuration {
		t.Errorf("accepted %d testers %v apart, %d per host", s.Testers, s.TesterStartInterval, e.Testbed.TestersPerHost)
	}
}
