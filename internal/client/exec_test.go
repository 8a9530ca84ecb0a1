package client

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

func TestExecClasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	tests := []struct {
		name    string
		argv    []string
		timeout time.Duration
		want    sample.Status
		errHas  string
	}{
		// exit status 0 is success
		{"ok", []string{"true"}, 5 * time.Second, sample.OK, ""},
		// a non-zero exit is a failed call, with the client's stderr kept
		{"failed", []string{"sh", "-c", "echo boom >&2; exit 3"}, 5 * time.Second, sample.Failed, "boom"},
		// a program that does not exist fails to start, it does not crash anything
		{"missing", []string{"/nonexistent/client"}, 5 * time.Second, sample.FailedToStart, "no such file"},
		// a hanging client (and the child it started) is killed at the timeout
		{"hang", []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; wait"}, 300 * time.Millisecond, sample.Timeout, "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewExec(tt.argv, os.Environ(), tt.timeout)
			start := time.Now()
			r := c.Call(context.Background())
			if r.Status != tt.want || !strings.Contains(r.Err, tt.errHas) {
				t.Fatalf("got %v %q, want %v containing %q", r.Status, r.Err, tt.want, tt.errHas)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Fatalf("call took %v", el)
			}
		})
	}
	// The grandchild of the hung client was killed with its group.
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	deadline := time.Now().Add(3 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %s still alive after timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestExecExpandsArgvWithoutShell(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	env := append(os.Environ(), "DIPERF_TARGET=http://x/$(reboot)", "OUT="+out)
	c := NewExec([]string{"sh", "-c", `printf %s "$1" > "$2"`, "sh", "$DIPERF_TARGET", "${OUT}"}, env, 5*time.Second)
	if r := c.Call(context.Background()); r.Status != sample.OK {
		t.Fatalf("call: %+v", r)
	}
	b, _ := os.ReadFile(out)
	if string(b) != "http://x/$(reboot)" {
		t.Fatalf("argv expanded to %q", b)
	}
}

func TestExecCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r := NewExec([]string{"sleep", "30"}, os.Environ(), time.Minute).Call(ctx)
	if r.Status != sample.Cancelled {
		t.Fatalf("got %+v", r)
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"A": "x", "B_1": "y"}
	tests := []struct{ in, want string }{
		{"$A", "x"},            // plain name
		{"${A}b", "xb"},        // braces end the name
		{"$B_1-$A", "y-x"},     // underscore and digits in names
		{"$UNKNOWN.", "."},     // unknown names become empty
		{"$! $1 $", "$! $1 $"}, // shell specials are kept
		{"${A", "${A"},         // unterminated brace kept
		{"a$", "a$"},           // trailing dollar kept
	}
	for _, tt := range tests {
		if got := Expand(tt.in, vars); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestExecStatusWinsOverLateStderr: a client whose stderr stays open after
// it exits (here a grandchild in a session of its own holds it, as a
// machine too busy to drain the pipe within WaitDelay looks to Wait) is
// judged by its exit status, not failed for the late pipe.
func TestExecStatusWinsOverLateStderr(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		code string
		want sample.Status
	}{{"0", sample.OK}, {"4", sample.Failed}} {
		c := NewExec([]string{"sh", "-c", "setsid sleep 3 & sleep 0.3; exit " + tt.code}, os.Environ(), 10*time.Second)
		r := c.Call(context.Background())
		if r.Status != tt.want {
			t.Errorf("exit %s: got %v %q, want %v", tt.code, r.Status, r.Err, tt.want)
		}
	}
}
