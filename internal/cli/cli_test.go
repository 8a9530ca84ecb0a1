package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExitCodesAndMessages(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("client:\n  exec: [true]\nschedule:\n  testers: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		// no command prints help and succeeds
		{"help", nil, 0, ""},
		// an unknown command is bad usage
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		// a missing argument is bad usage
		{"run without file", []string{"run"}, 2, "want 1 argument"},
		// an unknown flag is bad usage, with a hint
		{"unknown flag", []string{"analyze", "--bogus", "x"}, 2, "hint:"},
		// a bad experiment is exit 2 and names key and line
		{"bad experiment", []string{"run", bad, "--out", filepath.Join(t.TempDir(), "r")}, 2, "bad.yaml:4: schedule.testers"},
		// a run directory that does not exist is a failure, not a crash
		{"analyze missing dir", []string{"analyze", "/nonexistent/run"}, 1, "not a readable run directory"},
		// a tester without its secret refuses to start
		{"tester without secret", []string{"tester", "--controller", "127.0.0.1:1"}, 2, "--secret-fd"},
		// call wants a known protocol
		{"call bad protocol", []string{"call", "gopher", "x"}, 2, "unknown protocol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(tt.args, &out, &errb)
			if code != tt.code || !strings.Contains(errb.String(), tt.stderr) {
				t.Fatalf("exit %d stderr %q; want exit %d containing %q", code, errb.String(), tt.code, tt.stderr)
			}
		})
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	fs := newFlags(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, "x", "")
	out := fs.String("out", "", "")
	pos, err := parse(fs, []string{"a.yaml", "--out", "dir"}, 1)
	if err != nil || len(pos) != 1 || pos[0] != "a.yaml" || *out != "dir" {
		t.Fatalf("pos %v out %q err %v", pos, *out, err)
	}
}

// TestVersionAndHelp checks that --version works like the version command
// and that the help lists every bench subcommand.
func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 0 || out.String() != "diperf "+Version+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	var out bytes.Buffer
	Main([]string{"help"}, &out, &out)
	for name := range benchCommands {
		if !strings.Contains(out.String(), "bench "+name) {
			t.Errorf("help does not list bench %s:\n%s", name, out.String())
		}
	}
}
