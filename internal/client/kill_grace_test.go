package client

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// killedBy returns the killed_by extra of a reply (0: none).
func killedBy(r Reply) syscall.Signal {
	for _, e := range r.Extras {
		if e.Key == KilledByKey {
			return syscall.Signal(e.Value)
		}
	}
	return 0
}

// scriptExec is an exec client running script (a file, so that the
// tester expands no $VAR in it) with sh.
func scriptExec(t *testing.T, script string, timeout, grace time.Duration) *Exec {
	t.Helper()
	file := filepath.Join(t.TempDir(), "client.sh")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	e := NewExec([]string{"sh", file}, os.Environ(), timeout)
	e.KillGrace = grace
	return e
}

// marked reports whether a client wrote its marker file.
func marked(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && len(b) > 0
}

// TestExecCutOffAsksFirst checks that a call cut off, at its timeout or
// when the tester stops (the run's end), is asked to stop: its process
// group gets SIGTERM, a client that traps it ends on its own (its marker
// written, killed_by 15), and the call took the timeout, not the stop.
func TestExecCutOffAsksFirst(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		cancel bool
		want   sample.Status
	}{{"timeout", false, sample.Timeout}, {"tester stopped", true, sample.Cancelled}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mark := filepath.Join(t.TempDir(), "term")
			e := scriptExec(t, `trap 'sleep 0.2; echo term > `+mark+`; exit 3' TERM
sleep 600 & wait`, 300*time.Millisecond, 10*time.Second)
			ctx := context.Background()
			if c.cancel {
				e.Timeout = time.Minute
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
				defer cancel()
			}
			start := time.Now()
			r := e.Call(ctx)
			took := time.Since(start)
			if r.Status != c.want || killedBy(r) != syscall.SIGTERM || !strings.Contains(r.Err, "SIGTERM") {
				t.Errorf("reply %v %q killed_by %v, want %v ended on SIGTERM", r.Status, r.Err, killedBy(r), c.want)
			}
			if !marked(mark) {
				t.Error("the client's SIGTERM trap did not run: it was killed without being asked")
			}
			if took > 5*time.Second || r.Stopping < 200*time.Millisecond || r.Stopping > took {
				t.Errorf("the call took %v, %v of it stopping; want the trap's 200 ms of stopping, far from the 10 s grace", took, r.Stopping)
			}
		})
	}
}

// TestExecCutOffKillsAfterGrace checks that a client that ignores SIGTERM
// is killed with SIGKILL once client.kill_grace is over, not before, and
// that its call says so.
func TestExecCutOffKillsAfterGrace(t *testing.T) {
	t.Parallel()
	const grace = 500 * time.Millisecond
	e := scriptExec(t, `trap '' TERM
sleep 600`, 200*time.Millisecond, grace)
	start := time.Now()
	r := e.Call(context.Background())
	took := time.Since(start)
	if r.Status != sample.Timeout || killedBy(r) != syscall.SIGKILL || !strings.Contains(r.Err, "SIGKILL") {
		t.Errorf("reply %v %q killed_by %v, want a timeout killed with SIGKILL", r.Status, r.Err, killedBy(r))
	}
	if r.Stopping < grace || took < e.Timeout+grace || took > 10*time.Second {
		t.Errorf("the call took %v, %v of it stopping; want the %v timeout and then the whole %v grace", took, r.Stopping, e.Timeout, grace)
	}
}

// TestExecGraceCoversTheGroup checks that the grace is the whole group's,
// not the client's alone: a child that needs time to clean up on SIGTERM
// (as srun does to cancel its job) gets it, though the client itself
// ended at once.
func TestExecGraceCoversTheGroup(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "cleaned")
	e := scriptExec(t, `(trap 'sleep 0.3; echo cleaned > `+mark+`; exit 0' TERM; sleep 600 & wait) &
wait`, 300*time.Millisecond, 10*time.Second)
	r := e.Call(context.Background())
	if !marked(mark) || killedBy(r) != syscall.SIGTERM {
		t.Errorf("reply %v %q killed_by %v, cleaned up: %v; want the child's clean-up done, ended on SIGTERM", r.Status, r.Err, killedBy(r), marked(mark))
	}
}

// TestPersistentCutOffAsksFirst checks the same of a persistent client
// that does not reply within the timeout: SIGTERM first, then a new
// program for the next call (which replies: the first left its marker).
func TestPersistentCutOffAsksFirst(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "term")
	p := shClient(t, `trap 'echo term > `+mark+`; exit 0' TERM
reply() { if [ ! -e `+mark+` ]; then sleep 600 & wait; fi; echo ok; }`, 300*time.Millisecond)
	p.Grace = 10 * time.Second
	r := p.Call(context.Background())
	if r.Status != sample.Timeout || killedBy(r) != syscall.SIGTERM || !marked(mark) {
		t.Errorf("reply %v %q killed_by %v, marker %v; want a timeout ended on SIGTERM by the client's trap", r.Status, r.Err, killedBy(r), marked(mark))
	}
	if r := p.Call(context.Background()); r.Status != sample.OK {
		t.Errorf("the next call: %v %q, want ok from a new program", r.Status, r.Err)
	}
}

// TestClientMayNotReportKilledBy checks that killed_by is the tester's:
// a client that reports it has it dropped, with a note.
func TestClientMayNotReportKilledBy(t *testing.T) {
	t.Parallel()
	x := parseExtras("killed_by=15 ms=3")
	if len(x.extras) != 1 || x.extras[0].Key != "ms" || !strings.Contains(x.dropped, KilledByKey) {
		t.Errorf("parseExtras kept %v, dropped %q; want killed_by dropped, ms kept", x.extras, x.dropped)
	}
}
