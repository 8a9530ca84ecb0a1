package client

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// TestNew builds clients from descriptions as they come off the wire: an
// unknown or empty kind is a clear error, never a client.
func TestNew(t *testing.T) {
	t.Parallel()
	exec := protocol.ClientDesc{Kind: protocol.ClientExec, Argv: []string{"true"}}
	tests := []struct {
		name    string
		spec    Spec
		wantErr string // "" = builds
	}{
		{"exec", Spec{Desc: exec, Timeout: time.Second}, ""},
		{"unknown kind", Spec{Desc: protocol.ClientDesc{Kind: "grpc", Argv: []string{"x"}}, Timeout: time.Second}, `unknown client kind "grpc"`},
		{"no kind", Spec{Desc: protocol.ClientDesc{Argv: []string{"x"}}, Timeout: time.Second}, "no kind"},
		{"exec without argv", Spec{Desc: protocol.ClientDesc{Kind: protocol.ClientExec}, Timeout: time.Second}, "argv"},
		{"no timeout", Spec{Desc: exec}, "timeout"},
	}
	for _, tt := range tests {
		c, err := New(tt.spec)
		switch {
		case tt.wantErr == "" && (err != nil || c == nil):
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: err = %v, want one holding %q", tt.name, err, tt.wantErr)
		}
	}
}

// TestNewExecEnv checks that an exec client gets the tester's environment
// plus the description's own, which also feeds $VAR expansion.
func TestNewExecEnv(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	desc := protocol.ClientDesc{Kind: protocol.ClientExec,
		Argv: []string{"sh", "-c", `printf '%s %s' "$BASE" "$1" > "$2"`, "sh", "$EXTRA", out},
		Env:  []string{"EXTRA=from-desc"}}
	c, err := New(Spec{Desc: desc, Env: append(os.Environ(), "BASE=from-tester"), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Call(context.Background()); r.Status != sample.OK {
		t.Fatalf("call: %+v", r)
	}
	if b, _ := os.ReadFile(out); string(b) != "from-tester from-desc" {
		t.Fatalf("client saw %q", b)
	}
}
