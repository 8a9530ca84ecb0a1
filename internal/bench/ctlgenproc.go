package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// procGen runs the tester slots in child processes, a contiguous share
// each (see ServeGenerator for the pipes between them).
type procGen struct {
	kids []*genKid
}

// genKid is one generator child as the parent sees it.
type genKid struct {
	k         int
	plan      genPlan
	cmd       *exec.Cmd
	in        io.WriteCloser
	sent      atomic.Uint64
	acked     atomic.Uint64
	connected chan struct{} // closed at its "connected"
	ended     chan struct{} // closed when its stdout ended and it exited
	final     genReport     // its "done" or "error", once ended
	exitErr   error
}

// splitPlan cuts total slots into shares of at most per.
func splitPlan(p genPlan, per int) []genPlan {
	var ps []genPlan
	for first := 0; first < p.Total; first += per {
		q := p
		q.First, q.Count = first, min(per, p.Total-first)
		ps = append(ps, q)
	}
	return ps
}

// startProcGen starts a child from cmd(k) for each plan and sends it its
// plan; the children's stderr goes to logw.
func startProcGen(plans []genPlan, cmd func(k int) *exec.Cmd, logw io.Writer) (*procGen, error) {
	g := &procGen{}
	if _, ok := logw.(*os.File); !ok { // one copying goroutine per child
		logw = &lockedWriter{w: logw}
	}
	for k, p := range plans {
		kid, err := startKid(k, p, cmd(k), logw)
		if kid != nil {
			g.kids = append(g.kids, kid)
		}
		if err != nil {
			g.close()
			return nil, err
		}
	}
	return g, nil
}

func startKid(k int, p genPlan, c *exec.Cmd, logw io.Writer) (*genKid, error) {
	kid := &genKid{k: k, plan: p, cmd: c, connected: make(chan struct{}), ended: make(chan struct{})}
	c.Stderr = logw
	in, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting generator process %d: %w", k, err)
	}
	kid.in = in
	go kid.read(out)
	return kid, kid.tell(p)
}

// tell writes one line to the child.
func (kid *genKid) tell(v any) error {
	b, _ := json.Marshal(v)
	if _, err := kid.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("bench: generator process %d: %w", kid.k, err)
	}
	return nil
}

// read takes the child's reports until it exits.
func (kid *genKid) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	var once sync.Once
	for sc.Scan() {
		var m genReport
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		kid.sent.Store(m.Sent)
		kid.acked.Store(m.Acked)
		switch m.Ev {
		case "connected":
			once.Do(func() { close(kid.connected) })
		case "done", "error":
			kid.final = m
		}
	}
	kid.exitErr = kid.cmd.Wait()
	close(kid.ended)
}

// failure says why a child ended without its "done", or "".
func (kid *genKid) failure() string {
	switch {
	case kid.final.Ev == "error":
		return fmt.Sprintf("generator process %d (testers %d-%d): %s", kid.k, kid.plan.First, kid.plan.First+kid.plan.Count-1, kid.final.Err)
	case kid.final.Ev != "done":
		return fmt.Sprintf("generator process %d (testers %d-%d) exited early (%v)", kid.k, kid.plan.First, kid.plan.First+kid.plan.Count-1, kid.exitErr)
	}
	return ""
}

// connect is the first barrier: it returns when every child said
// connected, or the first failure.
func (g *procGen) connect(ctx context.Context) error {
	for _, kid := range g.kids {
		select {
		case <-kid.connected:
		case <-kid.ended:
			return errors.New("bench: " + kid.failure())
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (g *procGen) totals() (sent, acked uint64) {
	for _, kid := range g.kids {
		sent += kid.sent.Load()
		acked += kid.acked.Load()
	}
	return sent, acked
}

// send gives every child the same start time and waits for them all to end.
func (g *procGen) send(start time.Time) genResult {
	var res genResult
	for _, kid := range g.kids {
		_ = kid.tell(genGo{StartNs: start.UnixNano()})
	}
	for _, kid := range g.kids {
		<-kid.ended
		res.Failed += kid.final.Failed
		msg := kid.final.Err
		if f := kid.failure(); f != "" {
			msg = f
			if kid.final.Ev != "done" {
				res.Failed += int64(kid.plan.Count)
			}
		}
		if res.FirstError == "" {
			res.FirstError = msg
		}
	}
	return res
}

// cpu is this process's CPU and that of every child that has exited.
func (g *procGen) cpu() time.Duration {
	d := selfCPU(syscall.RUSAGE_SELF)
	for _, kid := range g.kids {
		select {
		case <-kid.ended:
			if ru, ok := kid.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				d += rusageCPU(ru)
			}
		default:
		}
	}
	return d
}

// close ends every child still running.
func (g *procGen) close() {
	for _, kid := range g.kids {
		kid.in.Close()
		select {
		case <-kid.ended:
		case <-time.After(5 * time.Second):
			_ = kid.cmd.Process.Kill()
			<-kid.ended
		}
	}
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
