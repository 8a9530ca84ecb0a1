package client

import (
	"context"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/contain"
)

// procGroup is the process group of one client process, led by it, with
// the goroutine that reaps the leader. The group's id is the leader's pid,
// which the kernel may give to another process once the leader has been
// reaped and the group is empty: so the group is signalled only while the
// leader is not reaped yet. On Linux the leader is waited for without
// being reaped (waitid WNOWAIT): when it exits on its own, what it left in
// its group is killed at once (a call leaves no load behind); while stop
// runs, stop ends the group, and only then is the leader reaped.
type procGroup struct {
	pid     int
	exited  chan struct{} // closed once the leader has exited
	reaped  chan struct{} // closed once cmd.Wait returned
	waitErr error         // what cmd.Wait returned; read after reaped

	mu       sync.Mutex
	gone     bool          // never signal the group again: the leader may be reaped
	stopping chan struct{} // set while stop runs, closed when it is over
}

// watchGroup starts reaping cmd, just started, whose process leads a
// group of its own; jail (nil: none) is told once it is reaped.
func watchGroup(cmd *exec.Cmd, jail *contain.Jail) *procGroup {
	g := &procGroup{pid: cmd.Process.Pid, exited: make(chan struct{}), reaped: make(chan struct{})}
	go g.reap(cmd, jail)
	return g
}

// reap waits for the leader to exit, settles its group, and reaps it.
// Where the system cannot wait without reaping, it reaps at once: the
// group is then signalled until then (a pid reused meanwhile is a risk
// taken there only).
func (g *procGroup) reap(cmd *exec.Cmd, jail *contain.Jail) {
	held := waitExitedNoReap(g.pid)
	if held {
		close(g.exited)
		g.settle()
	}
	g.waitErr = cmd.Wait()
	g.mu.Lock()
	g.gone = true
	g.mu.Unlock()
	if !held {
		close(g.exited)
	}
	jail.Reaped(g.pid)
	close(g.reaped)
}

// settle, the leader having exited, kills what it left in its group (e.g.
// `sh -c 'sleep 30 &'`), or lets the stop under way end it; then the
// leader may be reaped.
func (g *procGroup) settle() {
	g.mu.Lock()
	over := g.stopping
	if over == nil {
		_ = syscall.Kill(-g.pid, syscall.SIGKILL)
		g.gone = true
	}
	g.mu.Unlock()
	if over != nil {
		<-over
		g.mu.Lock()
		g.gone = true
		g.mu.Unlock()
	}
}

// signal sends sig to the whole group, unless its leader may have been
// reaped.
func (g *procGroup) signal(sig syscall.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.gone {
		_ = syscall.Kill(-g.pid, sig)
	}
}

// stop ends the group: SIGTERM, then SIGKILL unless within grace the
// leader exited and no process is left in its group (contain.End). It
// returns the signal that ended it, or 0 when the leader had already
// exited on its own.
func (g *procGroup) stop(grace time.Duration) syscall.Signal {
	g.mu.Lock()
	if g.gone {
		g.mu.Unlock()
		return 0
	}
	over := make(chan struct{})
	g.stopping = over
	g.mu.Unlock()
	defer close(over)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return contain.End(grace, g.signal, g.ended(ctx))
}

// ended returns a channel closed once the leader has exited and no live
// process is left in its group.
func (g *procGroup) ended(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		select {
		case <-g.exited:
		case <-ctx.Done():
			return
		}
		select {
		case <-contain.GroupGone(ctx, g.pid):
			close(ch)
		case <-ctx.Done():
		}
	}()
	return ch
}
