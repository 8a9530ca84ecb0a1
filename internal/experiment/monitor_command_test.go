package experiment

import (
	"testing"
)

// A command endpoint: its keys read back, and every problem on its line.
func TestMonitorCommandKey(t *testing.T) {
	t.Parallel()
	in := base + "monitor:\n  - name: slurm\n    format: command\n    host: admin@db1:2222\n    command:\n" +
		"      argv: [sdiag]\n      counters:\n        jobs_completed: 'Jobs completed:\\s*(\\d+)'\n" +
		"  - name: unbound\n    format: command\n    metrics: [\"unbound_*\"]\n    command: {argv: [sh, -c, 'unbound-control stats'], prometheus: true}\n"
	exp, err := Parse([]byte(in), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := exp.Monitor[0].Command
	if c == nil || c.Argv[0] != "sdiag" || c.Counters["jobs_completed"] != `Jobs completed:\s*(\d+)` || exp.Monitor[0].Host != "admin@db1:2222" {
		t.Fatalf("monitor[0] = %+v, command %+v", exp.Monitor[0], c)
	}
	b, err := exp.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if back, err := Parse(b, "copy.yaml"); err != nil || !back.Monitor[1].Command.Prometheus || back.Monitor[0].Command.Counters["jobs_completed"] == "" {
		t.Errorf("read back %+v, %v\n%s", back, err, b)
	}
	const ep = "monitor:\n  - name: a\n    format: command\n"
	tests := []struct {
		name, in string
		line     int
		key, msg string
	}{
		{"no command", ep, 4, "monitor[0].command.argv", "is required for format command"},
		{"empty argv", ep + "    command: {argv: [], prometheus: true}\n", 6, "monitor[0].command.argv", "is required"},
		{"nothing to read", ep + "    command: {argv: [sdiag]}\n", 6, "monitor[0].command", "needs counters"},
		{"both", ep + "    command:\n      argv: [sdiag]\n      prometheus: true\n      counters: {a: '(\\d+)'}\n", 9, "monitor[0].command.counters", "not both"},
		{"bad name", ep + "    command:\n      argv: [sdiag]\n      counters:\n        jobs-done: '(\\d+)'\n", 9, "monitor[0].command.counters.jobs-done", `got "jobs-done"`},
		{"digit first", ep + "    command:\n      argv: [sdiag]\n      counters:\n        1jobs: '(\\d+)'\n", 9, "monitor[0].command.counters.1jobs", "want [a-zA-Z_:]"},
		{"scraper's name", ep + "    command:\n      argv: [sdiag]\n      counters:\n        up: '(\\d+)'\n", 9, "monitor[0].command.counters.up", "the scraper writes"},
		{"bad pattern", ep + "    command:\n      argv: [sdiag]\n      counters:\n        jobs: 'Jobs (\\d+'\n", 9, "monitor[0].command.counters.jobs", "not a valid RE2"},
		{"no group", ep + "    command:\n      argv: [sdiag]\n      counters:\n        jobs: 'Jobs \\d+'\n", 9, "monitor[0].command.counters.jobs", "has 0"},
		{"two groups", ep + "    command:\n      argv: [sdiag]\n      counters:\n        jobs: '(Jobs) (\\d+)'\n", 9, "monitor[0].command.counters.jobs", "exactly one capture group"},
		{"url", ep + "    url: http://h/m\n    command: {argv: [sdiag], prometheus: true}\n", 6, "monitor[0].url", "not used by format command"},
		{"log", ep + "    log: {path: /var/log/x}\n    command: {argv: [sdiag], prometheus: true}\n", 6, "monitor[0].log", "belongs to format log"},
		{"metrics without prometheus", ep + "    metrics: [a]\n    command: {argv: [sdiag], counters: {a: '(\\d+)'}}\n", 6, "monitor[0].metrics", "need command.prometheus: true"},
		{"host option", ep + "    host: -oProxyCommand=evil\n    command: {argv: [sdiag], prometheus: true}\n", 6, "monitor[0].host", "starts with -"},
		{"host space", ep + "    host: 'db1 rm'\n    command: {argv: [sdiag], prometheus: true}\n", 6, "monitor[0].host", "a space"},
		{"host port", ep + "    host: db1:99999\n    command: {argv: [sdiag], prometheus: true}\n", 6, "monitor[0].host", "port is not 1 to 65535"},
		{"host user", ep + "    host: '@db1'\n    command: {argv: [sdiag], prometheus: true}\n", 6, "monitor[0].host", "user before @"},
		{"unknown key", ep + "    command: {argv: [sdiag], prometheus: true, shell: true}\n", 6, "monitor[0].command.shell", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantProblem(t, base+tt.in, tt.line, tt.key, tt.msg) })
	}
	for _, h := range []string{"db1", "admin@db1", "db1:22", "admin@10.0.0.1:2222", "[::1]:22", "::1"} {
		if msg := sshDestination(h); msg != "" {
			t.Errorf("host %q refused: %s", h, msg)
		}
	}
}
