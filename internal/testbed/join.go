package testbed

import (
	"context"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// Join is the testbed of testers started by any other engine (Kubernetes,
// HTCondor, systemd, a shell loop) that join the controller on their own:
// diperf tester --join HOST:PORT --token-file F. It starts nothing: every
// slot waits up to Wait for a tester to take it, and a tester is watched
// through its connection alone (it has no process here to wait for).
type Join struct {
	Wait time.Duration // how long the run waits for its testers to join

	once sync.Once
	done chan struct{} // closed by Cleanup: the handles' Wait returns
}

var (
	_ Testbed      = (*Join)(nil)
	_ BatchStarter = (*Join)(nil)
	_ SharedWait   = joinHandle{}
)

// NewJoin returns the join testbed for an experiment's testbed section.
func NewJoin(tb experiment.Testbed) *Join {
	w := tb.Wait.D()
	if w <= 0 {
		w = experiment.DefaultJoinWait
	}
	return &Join{Wait: w, done: make(chan struct{})}
}

// Prepare offers no hosts: testers come from wherever they were started.
func (j *Join) Prepare(context.Context, Plan) (Ready, error) {
	return Ready{JoinWait: j.Wait}, nil
}

// Start is never called for a BatchStarter; it hands out one handle.
func (j *Join) Start(context.Context, Spec) (Handle, error) {
	return joinHandle{done: j.done}, nil
}

// StartAll starts nothing: each slot waits for a tester to join it.
func (j *Join) StartAll(_ context.Context, specs []Spec) ([]Handle, error) {
	hs := make([]Handle, len(specs))
	for i := range hs {
		hs[i] = joinHandle{done: j.done}
	}
	return hs, nil
}

// Cleanup ends the handles: the testers themselves stop when the
// controller hangs up on them.
func (j *Join) Cleanup(context.Context) error {
	j.once.Do(func() { close(j.done) })
	return nil
}

// joinHandle stands for a tester that joined on its own: there is no
// process of ours to wait for or kill.
type joinHandle struct{ done chan struct{} }

func (joinHandle) Host() string { return "" }
func (joinHandle) PID() int     { return 0 }

// Wait returns once the testbed is cleaned up.
func (h joinHandle) Wait() error {
	<-h.done
	return nil
}

// SharedWait says that every join handle's Wait returns at Cleanup.
func (joinHandle) SharedWait() {}

// Kill does nothing: the controller hangs up on the tester, which stops.
func (joinHandle) Kill() error { return nil }
