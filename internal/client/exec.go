package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/contain"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/sample"
)

// stderrKeep is how much of a failed client's stderr is kept as its error.
const stderrKeep = 200

// Exec runs an executable per call: exit status 0 is success. The client
// may report extras for its call on fd 3 (ExtrasFD, named in the
// environment as DIPERF_EXTRAS_FD): key=value pairs, docs/clients.md. Each
// call runs in its own process group, in the tester's jail if it has one
// (package contain); on Linux whatever is left of that group when the
// client exits is killed (a call leaves no load behind), and the client
// gets SIGKILL if its tester dies (Pdeathsig). A call cut off (its
// timeout, or the tester stopping) is asked to stop first: SIGTERM to its
// group, and SIGKILL after KillGrace if it is still there.
type Exec struct {
	Argv    []string      // program and arguments, already expanded
	Env     []string      // full environment of the client (NewExec adds DIPERF_EXTRAS_FD)
	Dir     string        // working directory ("" = the tester's)
	Timeout time.Duration // a call past this is stopped and classed Timeout
	// KillGrace is how long a client cut off has, after SIGTERM, before
	// SIGKILL (0: SIGKILL at once).
	KillGrace time.Duration
	Jail      *contain.Jail // where the clients run (nil: process groups only)
}

var _ Client = (*Exec)(nil)

// NewExec expands $VAR and ${VAR} in argv from env (KEY=VALUE pairs, the
// last one wins), and $$ to $ (Expand) — no shell is involved — and
// returns the client. It adds
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
	cmd, stderr, extras, failed := e.start()
	if failed != nil {
		return *failed
	}
	g := watchGroup(cmd, e.Jail)
	timer := time.NewTimer(e.Timeout)
	defer timer.Stop()
	select {
	case <-g.reaped:
		return withExtras(exitReply(exitErr(cmd, g.waitErr), stderr.String()), extras.collect())
	case <-timer.C:
		return e.cut(g, extras, sample.Timeout, fmt.Sprintf("past the timeout (%v)", e.Timeout))
	case <-ctx.Done():
		return e.cut(g, extras, sample.Cancelled, "tester stopped")
	}
}

// start starts one run of the program, its stderr kept and its fd 3 read
// for extras; on failure it returns the call's reply instead.
func (e *Exec) start() (*exec.Cmd, *tailBuffer, *extrasPipe, *Reply) {
	cmd := exec.Command(e.Argv[0], e.Argv[1:]...)
	cmd.Env = e.Env
	cmd.Dir = e.Dir
	cmd.SysProcAttr = clientProcAttr()
	stderr := &tailBuffer{}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second
	extras, w, err := openExtras()
	if err != nil {
		return nil, nil, nil, &Reply{Status: sample.FailedToStart, Err: "extras pipe: " + err.Error()}
	}
	cmd.ExtraFiles = []*os.File{w} // fd 3 = ExtrasFD
	err = e.Jail.Start(cmd)
	_ = w.Close()
	if err != nil {
		extras.abandon()
		return nil, nil, nil, &Reply{Status: sample.FailedToStart, Err: err.Error()}
	}
	return cmd, stderr, extras, nil
}

// cut ends a call cut off for why: it stops the client's group (SIGTERM,
// then SIGKILL after KillGrace) and returns the reply, which says the
// signal that ended it.
func (e *Exec) cut(g *procGroup, extras *extrasPipe, st sample.Status, why string) Reply {
	at := time.Now()
	sig := g.stop(e.KillGrace)
	<-g.reaped
	extras.abandon()
	return cutReply(st, why, sig, e.KillGrace, time.Since(at))
}

// exitErr is how a client that exited on its own ended. A client whose
// stderr was not drained within WaitDelay (a machine too busy to schedule
// the copy, or a descendant holding it) ended with its exit status, not
// the late pipe.
func exitErr(cmd *exec.Cmd, err error) error {
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil {
		err = nil
		if !cmd.ProcessState.Success() {
			err = &exec.ExitError{ProcessState: cmd.ProcessState}
		}
	}
	return err
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

// Expand expands one argv element from vars (experiment.ExpandArg): $$
// becomes a literal $, $NAME and ${NAME} (NAME a shell identifier) their
// values, unknown names "" (validation refuses them, so only a test
// description made by hand has any). Anything else after a '$' ($1, $!,
// $(...), a lone $) is kept as it is, so shell scripts passed in argv
// survive.
func Expand(s string, vars map[string]string) string {
	out, _ := experiment.ExpandArg(s, func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	})
	return out
}
