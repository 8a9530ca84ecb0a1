package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// stderrKeep is how much of a failed client's stderr is kept as its error.
const stderrKeep = 200

// Exec runs an executable per call: exit status 0 is success. The client
// may report extras for its call on fd 3 (ExtrasFD, named in the
// environment as DIPERF_EXTRAS_FD): key=value pairs, docs/clients.md. Each call runs
// in its own process group so that a timeout kills the client and whatever
// it started; on Linux whatever is left of that group when the client
// exits is killed too (a call leaves no load behind), and the client gets
// SIGKILL if its tester dies (Pdeathsig).
type Exec struct {
	Argv    []string      // program and arguments, already expanded
	Env     []string      // full environment of the client (NewExec adds DIPERF_EXTRAS_FD)
	Dir     string        // working directory ("" = the tester's)
	Timeout time.Duration // a call past this is killed and classed Timeout
}

var _ Client = (*Exec)(nil)

// NewExec expands $VAR and ${VAR} in argv from env (KEY=VALUE pairs, the
// last one wins) — no shell is involved — and returns the client. It adds
// DIPERF_EXTRAS_FD=3 to env (so $DIPERF_EXTRAS_FD in argv expands too).
func NewExec(argv, env []string, timeout time.Duration) *Exec {
	env = append(env[:len(env):len(env)], ExtrasFDEnv+"="+strconv.Itoa(ExtrasFD))
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
	cmd.SysProcAttr = clientProcAttr()
	var stderr tailBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	extras, w, err := openExtras()
	if err != nil {
		return Reply{Status: sample.FailedToStart, Err: "extras pipe: " + err.Error()}
	}
	cmd.ExtraFiles = []*os.File{w} // fd 3 = ExtrasFD
	err = cmd.Start()
	_ = w.Close()
	if err != nil {
		extras.abandon()
		return Reply{Status: sample.FailedToStart, Err: err.Error()}
	}
	g := &procGroup{pid: cmd.Process.Pid}
	done := make(chan error, 1)
	go func() {
		g.awaitExit()
		done <- cmd.Wait()
	}()
	timer := time.NewTimer(e.Timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil {
			// The client exited, but its stderr was not drained within
			// WaitDelay (a machine too busy to schedule the copy): the exit
			// status is the call's outcome, not the late pipe.
			err = nil
			if !cmd.ProcessState.Success() {
				err = &exec.ExitError{ProcessState: cmd.ProcessState}
			}
		}
		return withExtras(exitReply(err, stderr.String()), extras.collect())
	case <-timer.C:
		g.kill()
		<-done
		extras.abandon()
		return Reply{Status: sample.Timeout, Err: fmt.Sprintf("killed after timeout %v", e.Timeout)}
	case <-ctx.Done():
		g.kill()
		<-done
		extras.abandon()
		return Reply{Status: sample.Cancelled, Err: "tester stopped"}
	}
}

// procGroup is the process group of one call, led by the client. Its id is
// the client's pid, which the kernel may give to another process once the
// client has been reaped and the group is empty: so the group is signalled
// only while the client is not reaped yet.
type procGroup struct {
	pid    int
	mu     sync.Mutex
	reaped bool // the leader may be reaped: never signal the group again
}

// kill kills the whole group, unless its leader may have been reaped.
func (g *procGroup) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		_ = syscall.Kill(-g.pid, syscall.SIGKILL)
	}
}

// awaitExit waits for the leader to exit without reaping it (its pid, and
// so the group id, stays taken meanwhile), kills whatever it left in its
// group (e.g. `sh -c 'sleep 30 &'`), and then lets it be reaped. Where the
// system cannot wait without reaping it does nothing: the group is then
// signalled on a timeout or a stop only.
func (g *procGroup) awaitExit() {
	if !waitExitedNoReap(g.pid) {
		return
	}
	g.kill()
	g.mu.Lock()
	g.reaped = true
	g.mu.Unlock()
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
