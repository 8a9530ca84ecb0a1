package relay

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/hashicorp/yamux"
)

// Options configure a Pool.
type Options struct {
	Workers  int // relay worker processes
	MaxConns int // tester connections each one holds at most
	// Command makes the command of one worker: the diperf binary's hidden
	// `relay` subcommand, to which Start adds --max-conns and gives the
	// listening socket as fd 3 and its end of the Unix socket as fd 4.
	Command func() *exec.Cmd
	// Handle serves one relayed tester connection (on its own goroutine,
	// as the controller serves one it accepted).
	Handle func(net.Conn)
	// Log hears each worker's start and end, and a stream that came with
	// no valid header.
	Log func(event, detail string)
}

// headerTimeout bounds the wait for a stream's header: a relay writes it
// at once, so a stream without one is broken and is closed.
const headerTimeout = 10 * time.Second

// Pool is a controller's relay workers.
type Pool struct {
	o     Options
	mu    sync.Mutex
	procs []*worker
	wg    sync.WaitGroup // one per worker: its streams' accept loop and its exit
}

type worker struct {
	cmd    *exec.Cmd
	sess   *yamux.Session
	stderr bytes.Buffer
}

// Start starts o.Workers relay workers on ln, which they accept from in
// the controller's place (the controller must not accept from ln itself),
// and hands each connection they relay to o.Handle.
func Start(ln *net.TCPListener, o Options) (*Pool, error) {
	if o.Workers < 1 || o.MaxConns < 1 || o.Command == nil || o.Handle == nil {
		return nil, errors.New("relay: Start needs Workers, MaxConns, Command and Handle")
	}
	if o.Log == nil {
		o.Log = func(string, string) {}
	}
	lf, err := ln.File()
	if err != nil {
		return nil, fmt.Errorf("relay: the listening socket: %w", err)
	}
	defer lf.Close()
	p := &Pool{o: o}
	for i := range o.Workers {
		if err := p.start(i, lf); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// start starts worker i on the listening socket lf.
func (p *Pool) start(i int, lf *os.File) error {
	fds, err := socketPair()
	if err != nil {
		return fmt.Errorf("relay: socket pair: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "relay"), os.NewFile(uintptr(fds[1]), "relay-worker")
	defer theirs.Close()
	defer mine.Close()
	w := &worker{cmd: p.o.Command()}
	w.cmd.Args = append(w.cmd.Args, "--max-conns", fmt.Sprint(p.o.MaxConns))
	w.cmd.ExtraFiles = []*os.File{lf, theirs}
	w.cmd.Stderr = &limitedBuffer{b: &w.stderr, max: 4 << 10}
	w.cmd.SysProcAttr = workerAttr()
	if err := w.cmd.Start(); err != nil {
		return fmt.Errorf("relay: starting worker %d: %w", i, err)
	}
	conn, err := net.FileConn(mine)
	if err == nil {
		w.sess, err = yamux.Server(conn, muxConfig())
	}
	if err != nil {
		_ = w.cmd.Process.Kill()
		_ = w.cmd.Wait()
		return fmt.Errorf("relay: worker %d's socket: %w", i, err)
	}
	p.mu.Lock()
	p.procs = append(p.procs, w)
	p.mu.Unlock()
	p.o.Log("relay-start", fmt.Sprintf("relay worker %d: pid %d, up to %d testers", i, w.cmd.Process.Pid, p.o.MaxConns))
	p.wg.Add(1)
	go p.serve(i, w)
	return nil
}

// serve hands every stream of w to Handle until w's session ends, then
// waits for the process and logs how it ended.
func (p *Pool) serve(i int, w *worker) {
	defer p.wg.Done()
	p.acceptAll(w.sess)
	w.sess.Close()
	err := w.cmd.Wait()
	detail := fmt.Sprintf("relay worker %d (pid %d) ended: %v", i, w.cmd.Process.Pid, exitText(err))
	if s := bytes.TrimSpace(w.stderr.Bytes()); len(s) > 0 {
		detail += ": " + string(s)
	}
	p.o.Log("relay-exit", detail)
}

// acceptAll hands every stream of sess to attach, each on its own
// goroutine, until the session ends.
func (p *Pool) acceptAll(sess *yamux.Session) {
	for {
		st, err := sess.AcceptStream()
		if err != nil {
			return
		}
		go p.attach(st)
	}
}

// attach reads a stream's header and hands it to Handle as the tester's
// connection.
func (p *Pool) attach(st *yamux.Stream) {
	_ = st.SetReadDeadline(time.Now().Add(headerTimeout))
	addr, err := readHeader(st)
	_ = st.SetReadDeadline(time.Time{})
	if err != nil {
		st.Close()
		p.o.Log("relay-error", err.Error())
		return
	}
	p.o.Handle(&streamConn{Stream: st, remote: addr})
}

// Close ends every worker's session (each worker then closes its testers'
// connections and exits) and waits for them.
func (p *Pool) Close() {
	p.mu.Lock()
	for _, w := range p.procs {
		w.sess.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Pids returns the workers' process ids.
func (p *Pool) Pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]int, 0, len(p.procs))
	for _, w := range p.procs {
		out = append(out, w.cmd.Process.Pid)
	}
	return out
}

func exitText(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
