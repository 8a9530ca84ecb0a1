package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/contain"
	"github.com/diperf/diperf/internal/sample"
)

// Persistent runs a long-lived client program and tells it when to make
// each call, over the line protocol of docs/clients.md: the tester writes
// "call <n>" to the program's stdin, the program answers one line on its
// stdout ("ok ..." or "fail ..."). One program serves one call at a time;
// concurrent calls (the tester's client loops) each take an idle program
// or start one, so there are at most as many programs as concurrent
// callers. A program that breaks the protocol, crashes or overruns the
// timeout is stopped (its process group: SIGTERM, then SIGKILL after
// Grace) and replaced on a later call.
type Persistent struct {
	Argv    []string      // program and arguments, already expanded
	Env     []string      // full environment of the program
	Dir     string        // working directory ("" = the tester's)
	Timeout time.Duration // a call (or a start) past this is cut off
	// Grace is how long a program has to exit: at Close after the end of
	// its stdin, then after SIGTERM before SIGKILL; when it is stopped
	// otherwise, after SIGTERM (client.kill_grace).
	Grace time.Duration
	Jail  *contain.Jail // where the programs run (nil: process groups only)

	mu     sync.Mutex
	idle   []*proc
	all    map[*proc]struct{}
	closed bool
}

var _ Client = (*Persistent)(nil)

// NewPersistent expands $VAR in argv from env like NewExec and returns the
// client; no program starts until the first call.
func NewPersistent(argv, env []string, timeout time.Duration) *Persistent {
	e := NewExec(argv, env, timeout)
	return &Persistent{Argv: e.Argv, Env: env, Timeout: timeout, Grace: time.Second,
		all: map[*proc]struct{}{}}
}

// Call takes an idle program (or starts one), has it make one call and
// reads its reply. A start that fails is FailedToStart; a reply past the
// timeout is Timeout; a broken reply (garbage, over MaxExtrasText, the
// program gone) is Failed; a cancelled ctx is Cancelled.
func (p *Persistent) Call(ctx context.Context) Reply {
	deadline := time.Now().Add(p.Timeout)
	pr, err := p.take()
	if err != nil {
		return Reply{Status: sample.Cancelled, Err: err.Error()}
	}
	if pr == nil {
		if pr, err = p.start(ctx, deadline); err != nil {
			return startReply(ctx, err)
		}
	}
	r, healthy := pr.call(ctx, deadline)
	if healthy {
		p.put(pr)
		return r
	}
	at := time.Now()
	sig := p.discard(pr)
	if r.Status == sample.Timeout || r.Status == sample.Cancelled {
		r = cutReply(r.Status, r.Err, sig, p.Grace, time.Since(at))
	}
	return r
}

// startReply classes a start that did not come to a ready program.
func startReply(ctx context.Context, err error) Reply {
	if ctx.Err() != nil {
		return Reply{Status: sample.Cancelled, Err: "tester stopped"}
	}
	return Reply{Status: sample.FailedToStart, Err: err.Error()}
}

var errClosed = errors.New("persistent client closed")

// take pops an idle program (nil: none is idle).
func (p *Persistent) take() (*proc, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errClosed
	}
	n := len(p.idle)
	if n == 0 {
		return nil, nil
	}
	pr := p.idle[n-1]
	p.idle = p.idle[:n-1]
	return pr, nil
}

// start starts a program and waits for its ready line.
func (p *Persistent) start(ctx context.Context, deadline time.Time) (*proc, error) {
	pr, err := startProc(p.Argv, p.Env, p.Dir, p.Jail)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	closed := p.closed
	if !closed {
		p.all[pr] = struct{}{}
	}
	p.mu.Unlock()
	if closed {
		pr.end(p.Grace)
		return nil, errClosed
	}
	if err := pr.awaitReady(ctx, deadline); err != nil {
		p.discard(pr)
		return nil, err
	}
	return pr, nil
}

// put returns a healthy program to the idle list (or stops it, if the
// client was closed meanwhile).
func (p *Persistent) put(pr *proc) {
	p.mu.Lock()
	closed := p.closed
	if !closed {
		p.idle = append(p.idle, pr)
	}
	p.mu.Unlock()
	if closed {
		p.discard(pr)
	}
}

// discard stops a program (end) and forgets it; it returns the signal
// that ended it.
func (p *Persistent) discard(pr *proc) syscall.Signal {
	sig := pr.end(p.Grace)
	p.mu.Lock()
	delete(p.all, pr)
	p.mu.Unlock()
	return sig
}

// Close stops every program: it closes their stdin (a client exits at
// the end of its input), sends SIGTERM to each group still running after
// Grace, and SIGKILL to those still there after another Grace. It returns
// once all are reaped.
func (p *Persistent) Close() error {
	p.mu.Lock()
	p.closed = true
	procs := make([]*proc, 0, len(p.all))
	for pr := range p.all {
		procs = append(procs, pr)
	}
	p.all, p.idle = map[*proc]struct{}{}, nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, pr := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr.stop(p.Grace)
		}()
	}
	wg.Wait()
	return nil
}

// String names the client in messages.
func (p *Persistent) String() string { return fmt.Sprintf("persistent client %q", p.Argv) }
