package experiment

import (
	"strings"
	"testing"
)

// base is a valid file; error cases append to it, so their lines start at 3.
const base = "name: t\nclient: {exec: [true]}\n"

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		line int
		key  string
		msg  string // a substring of the message
	}{
		// A misspelt key is named in full, with a hint.
		{"unknown key", base + "schedule:\n  testers: 2\n  testerz: 3\n", 5, "schedule.testerz", `unknown key; did you mean "testers"?`},
		// An unknown top-level key.
		{"unknown top key", base + "\n\ncolour: red\n", 5, "colour", "unknown key"},
		// A word where a number belongs.
		{"wrong type", base + "schedule:\n  testers: twenty\n", 4, "schedule.testers", `want an integer, got "twenty"`},
		// A float is not an integer.
		{"float for int", base + "testbed: {testers_per_host: 1.5}\n", 3, "testbed.testers_per_host", `want an integer, got "1.5"`},
		// A mapping where a string belongs.
		{"mapping for string", base + "target: {url: x}\n", 3, "target", "want a string, got a mapping"},
		// A negative duration is caught by validation, on the file's line.
		{"negative duration", base + "schedule:\n  tester_duration: -5s\n", 4, "schedule.tester_duration", "must not be negative, got -5s"},
		// Negative seconds as well.
		{"negative seconds", base + "sync: {interval: -2}\n", 3, "sync.interval", "must not be negative, got -2s"},
		// A duration that does not parse.
		{"bad duration", base + "schedule:\n  client_interval: 3 parsecs\n", 4, "schedule.client_interval", `invalid duration "3 parsecs"`},
		// A boolean is no duration.
		{"bool duration", base + "analysis: {quantum: true}\n", 3, "analysis.quantum", `invalid duration "true"`},
		// A list where a duration belongs.
		{"list for duration", base + "analysis:\n  quantum:\n    - 1s\n", 5, "analysis.quantum", "want a duration, got a list"},
		// The second of two equal keys is reported.
		{"duplicate key", base + "schedule:\n  testers: 2\n  testers: 3\n", 5, "schedule.testers", "duplicate key (first set on line 4)"},
		// A duplicate section.
		{"duplicate section", base + "client: {timeout: 1s}\n", 3, "client", "duplicate key (first set on line 2)"},
		// A list where a mapping is expected.
		{"list for mapping", base + "schedule:\n  - testers: 3\n", 4, "schedule", "want a mapping, got a list"},
		// A string where a list is expected.
		{"string for list", base + "testbed:\n  hosts: a,b\n", 4, "testbed.hosts", `want a list, got "a,b"`},
		// A bad list element is named by index.
		{"bad element", base + "testbed:\n  hosts:\n    - a\n    - [b]\n", 6, "testbed.hosts[1]", "want a string, got a list"},
		// Merge keys are not supported.
		{"merge key", base + "sync:\n  <<: {interval: 1s}\n", 4, "sync", "keys must be plain names"},
		// The document must be a mapping.
		{"list document", "- a\n- b\n", 1, "", "want a mapping of keys at the top level, got a list"},
		// A scalar document.
		{"scalar document", "\nhello\n", 2, "", `got "hello"`},
		// Only one document per file.
		{"two documents", base + "---\nname: u\n", 3, "", "single YAML document"},
		// Broken YAML keeps yaml.v3's line: a tab in the indentation.
		{"syntax tab", base + "schedule:\n\ttesters: 2\n", 4, "", "invalid YAML"},
		// Broken YAML: a mapping value on one line.
		{"syntax colon", base + "name: a: b\n", 3, "", "invalid YAML: mapping values are not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.in), "exp.yaml")
			for _, p := range problems(t, err) {
				if p.Line == tt.line && p.Key == tt.key && strings.Contains(p.Msg, tt.msg) && p.File == "exp.yaml" {
					return
				}
			}
			t.Errorf("got\n%v\nwant a problem at line %d, key %q, containing %q", err, tt.line, tt.key, tt.msg)
		})
	}
}

func TestParseReportsAll(t *testing.T) {
	t.Parallel()
	in := `name: my test
client:
  exec: []
  timeout: soon
  timeout: 1s
schedule:
  testers: 0
  testerz: 1
sync: [5m]
analysis:
  quantum: 1ms
`
	want := []string{
		`exp.yaml:1: name: may hold only letters, digits, '-', '_' and '.', got "my test"`,
		`exp.yaml:3: client.exec: must not be empty`,
		`exp.yaml:4: client.timeout: invalid duration "soon"`,
		`exp.yaml:5: client.timeout: duplicate key (first set on line 4)`,
		`exp.yaml:7: schedule.testers: must be at least 1, got 0`,
		`exp.yaml:8: schedule.testerz: unknown key`,
		`exp.yaml:9: sync: want a mapping, got a list`,
		`exp.yaml:11: analysis.quantum: must be at least 10ms, got 1ms`,
	}
	_, err := Parse([]byte(in), "exp.yaml")
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(got), len(want), err)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\ngot  %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{"a.yaml", 3, "k", "bad"}, "a.yaml:3: k: bad"},       // everything known
		{Problem{"a.yaml", 0, "k", "bad"}, "a.yaml: k: bad"},         // value from the defaults
		{Problem{"a.yaml", 2, "", "not YAML"}, "a.yaml:2: not YAML"}, // the whole file
		{Problem{"", 4, "k", "bad"}, "line 4: k: bad"},               // no file name
		{Problem{"", 0, "k", "bad"}, "k: bad"},                       // nothing but the key
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.p, got, tt.want)
		}
	}
}
