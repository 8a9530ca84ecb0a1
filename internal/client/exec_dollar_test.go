package client

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// TestExpandDollarEscape: $$ is a literal $, so a shell in argv gets its
// own variables ($$x is $x) and its pid ($$$$ is $$); names expand.
func TestExpandDollarEscape(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"DIPERF_TARGET": "http://t", "X": "v"}
	tests := []struct{ in, want string }{
		{"$$", "$"},
		{"$$x", "$x"},
		{"x=1; echo $$x", "x=1; echo $x"},
		{"$${X}", "${X}"},
		{"${X}", "v"},
		{"$$$$", "$$"},
		{"$1 $! $(id)", "$1 $! $(id)"},
		{"$DIPERF_TARGET/$$DIPERF_TARGET", "http://t/$DIPERF_TARGET"},
	}
	for _, tt := range tests {
		if got := Expand(tt.in, vars); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestExecShellVariable: a real exec client's sh -c script keeps its shell
// variables written $$x, and reports through $DIPERF_EXTRAS_FD.
func TestExecShellVariable(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	argv := []string{"sh", "-c", `x=ok; echo "$$x" > "$0"; echo n=$${#x} >&$DIPERF_EXTRAS_FD; echo $$$$ >> "$0"`, out}
	c := NewExec(argv, os.Environ(), 5*time.Second)
	r := c.Call(context.Background())
	if r.Status != sample.OK {
		t.Fatalf("call: %+v", r)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(b))
	if len(lines) != 2 || lines[0] != "ok" {
		t.Fatalf("the script wrote %q, want ok and its pid", b)
	}
	if pid, err := strconv.Atoi(lines[1]); err != nil || pid <= 1 {
		t.Errorf("$$$$ gave %q, want the shell's pid", lines[1])
	}
	if len(r.Extras) != 1 || r.Extras[0].Key != "n" || r.Extras[0].Value != 2 {
		t.Errorf("extras %+v, want n=2 (the length of $x)", r.Extras)
	}
}

// TestSocketPayloadBound: validation bounds a socket payload as the
// testers do.
func TestSocketPayloadBound(t *testing.T) {
	t.Parallel()
	if experiment.MaxSocketPayload != protocol.MaxPayload {
		t.Errorf("experiment.MaxSocketPayload %d, protocol.MaxPayload %d: want them equal",
			experiment.MaxSocketPayload, protocol.MaxPayload)
	}
}
