package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// killGrace is how long a command is given to exit on SIGTERM before its
// process group is killed.
const killGrace = 200 * time.Millisecond

// stderrTail is how much of the end of a command's standard error a
// failure names.
const stderrTail = 1 << 10

// LocalExec is the Exec of this machine: host must be "". argv runs
// without a shell, in its own process group; ctx's end, or Close before
// it exits, stops that group (SIGTERM, then SIGKILL after killGrace). Once
// the command has exited, what is left of its group is killed and the
// command reaped.
func LocalExec(ctx context.Context, host string, argv []string) (io.ReadCloser, error) {
	if host != "" {
		return nil, fmt.Errorf("monitor: run on %q: only this machine's commands (no host) run here", host)
	}
	if len(argv) == 0 {
		return nil, errors.New("monitor: no command to run")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("monitor: run %s: %w", argv[0], err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = w, &tailWriter{max: stderrTail}
	cmd.SysProcAttr = procAttr()
	cmd.WaitDelay = killGrace
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return nil, err // it names argv[0]
	}
	p := &localProc{cmd: cmd, out: r, stop: make(chan struct{}), done: make(chan struct{})}
	go p.watch(ctx)
	return p, nil
}

// localProc is a running command: its output, and the goroutine that
// stops and reaps it.
type localProc struct {
	cmd      *exec.Cmd
	out      *os.File
	stop     chan struct{} // closed by Close
	stopOnce sync.Once
	done     chan struct{} // closed once the command is reaped
	err      error         // why it failed, set before done closes
}

// watch waits for the command to exit, stopping it first when ctx ends or
// Close is called, then kills what is left of its group and reaps it.
func (p *localProc) watch(ctx context.Context) {
	defer close(p.done)
	exited := make(chan struct{})
	var reaped bool
	var werr error
	go func() {
		reaped, werr = awaitExit(p.cmd)
		close(exited)
	}()
	select {
	case <-exited:
	case <-ctx.Done():
		p.kill(exited)
	case <-p.stop:
		p.kill(exited)
	}
	if !reaped {
		p.signal(syscall.SIGKILL) // the exited leader still holds the group's id
		werr = p.cmd.Wait()
	}
	p.err = p.failure(werr)
	_ = p.out.SetReadDeadline(time.Now()) // wake a Read waiting on a pipe that a process out of the group holds
}

// kill stops the group: SIGTERM, then SIGKILL after killGrace; it
// returns once the command has exited.
func (p *localProc) kill(exited <-chan struct{}) {
	p.signal(syscall.SIGTERM)
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case <-exited:
		return
	case <-t.C:
	}
	p.signal(syscall.SIGKILL)
	<-exited
}

// signal sends sig to the command's process group.
func (p *localProc) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// failure is werr as a reader's error: nil for exit 0, else the exit
// status and the end of standard error.
func (p *localProc) failure(werr error) error {
	if werr == nil || errors.Is(werr, exec.ErrWaitDelay) { // exit 0; a process out of the group holds stderr
		return nil
	}
	msg := werr.Error()
	if tail := p.cmd.Stderr.(*tailWriter).String(); tail != "" {
		msg += ": " + tail
	}
	return &ExecError{Msg: msg, Err: werr}
}

// Read reads the command's output; at its end it waits for the command:
// io.EOF when it exited 0, else its failure. Once the command is reaped
// (its group killed), what is left in the pipe is read without waiting:
// a process that left the group may still hold the pipe open.
func (p *localProc) Read(b []byte) (int, error) {
	select {
	case <-p.done:
		return p.drain(b)
	default:
	}
	n, err := p.out.Read(b)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded): // watch woke us: reaped
		<-p.done
		return p.drain(b)
	case errors.Is(err, io.EOF):
		<-p.done
		return n, p.end()
	}
	return n, err
}

// drain reads what the reaped command left in the pipe, never waiting.
func (p *localProc) drain(b []byte) (int, error) {
	_ = p.out.SetReadDeadline(time.Time{})
	raw, err := p.out.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := raw.Read(func(fd uintptr) bool {
		n, rerr = syscall.Read(int(fd), b)
		return !errors.Is(rerr, syscall.EINTR)
	}); err != nil {
		return 0, err
	}
	switch {
	case n > 0:
		return n, nil
	case rerr == nil || errors.Is(rerr, syscall.EAGAIN):
		return 0, p.end()
	}
	return 0, rerr
}

// end is how the output ends: io.EOF, or the command's failure.
func (p *localProc) end() error {
	if p.err != nil {
		return p.err
	}
	return io.EOF
}

// Close stops the command if it still runs and waits for it.
func (p *localProc) Close() error {
	p.stopOnce.Do(func() { close(p.stop) })
	<-p.done
	return p.out.Close()
}

// ExecError is a command that did not exit 0: its status and the end of
// its standard error.
type ExecError struct {
	Msg string
	Err error
}

func (e *ExecError) Error() string { return e.Msg }
func (e *ExecError) Unwrap() error { return e.Err }
