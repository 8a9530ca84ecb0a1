package client

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// stderrKeep is how much of a failed client's stderr is kept as its error.
const stderrKeep = 200

// Exec runs an executable per call: exit status 0 is success. Each call runs
// in its own process group so that a timeout kills the client and whatever
// it started.
type Exec struct {
	Argv    []string      // program and arguments, already expanded
	Env     []string      // full environment of the client
	Dir     string        // working directory ("" = the tester's)
	Timeout time.Duration // a call past this is killed and classed Timeout
}

var _ Client = (*Exec)(nil)

// NewExec expands $VAR and ${VAR} in argv from env (KEY=VALUE pairs, the
// last one wins) — no shell is involved — and returns the client.
func NewExec(argv, env []string, timeout time.Duration) *Exec {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Expand(a, vars)
	}
	return &Exec{Argv: out, Env: env, Timeout: timeout}
}

// Call runs the program once.
func (e *Exec) Call(ctx context.Context) Reply {
	cmd := exec.Command(e.Argv[0], e.Argv[1:]...)
	cmd.Env = e.Env
	cmd.Dir = e.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr tailBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return Reply{Status: sample.FailedToStart, Err: err.Error()}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(e.Timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return exitReply(err, stderr.String())
	case <-timer.C:
		killGroup(cmd, done)
		return Reply{Status: sample.Timeout, Err: fmt.Sprintf("killed after timeout %v", e.Timeout)}
	case <-ctx.Done():
		killGroup(cmd, done)
		return Reply{Status: sample.Cancelled, Err: "tester stopped"}
	}
}

func killGroup(cmd *exec.Cmd, done <-chan error) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

func exitReply(err error, stderr string) Reply {
	if err == nil {
		return Reply{Status: sample.OK}
	}
	msg := err.Error()
	var ee *exec.ExitError
	if errors.As(err, &ee) && stderr != "" {
		msg += ": " + stderr
	}
	return Reply{Status: sample.Failed, Err: msg}
}

// tailBuffer keeps the last stderrKeep bytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > stderrKeep {
		t.b = t.b[len(t.b)-stderrKeep:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return strings.TrimSpace(string(t.b)) }

// Expand replaces $NAME and ${NAME} (NAME a shell identifier) with their
// values from vars, unknown names with "". Anything else after a '$' ($1,
// $!, $$, a lone $) is kept as it is, so shell scripts passed in argv survive.
func Expand(s string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		name, n := varName(s[i+1:])
		if n == 0 {
			b.WriteByte('$')
			s = s[i+1:]
			continue
		}
		b.WriteString(vars[name])
		s = s[i+1+n:]
	}
}

// varName reads an identifier or a {identifier} at the start of s and
// returns it with the number of bytes it took (0: none).
func varName(s string) (string, int) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end > 1 && identLen(s[1:end]) == end-1 {
			return s[1:end], end + 1
		}
		return "", 0
	}
	n := identLen(s)
	return s[:n], n
}

func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(s)
}
