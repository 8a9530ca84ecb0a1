package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/contain"
	"github.com/diperf/diperf/internal/sample"
)

// proc is one running persistent client program.
type proc struct {
	cmd    *exec.Cmd
	in     *os.File // the write end of its stdin
	out    *os.File // the read end of its stdout
	rd     *bufio.Reader
	stderr syncTail
	group  *procGroup // its process group, and its reaper
	calls  uint64
	once   sync.Once // closes in and out
}

// startProc starts a program in jail with pipes on its stdin and stdout
// (ours pollable, so reads and writes take deadlines) and a reaper
// goroutine.
func startProc(argv, env []string, dir string, jail *contain.Jail) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("persistent client: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("persistent client: %w", err)
	}
	pr := &proc{in: inW, out: outR, rd: bufio.NewReaderSize(outR, MaxExtrasText)}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir, cmd.SysProcAttr = env, dir, clientProcAttr()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, &pr.stderr
	cmd.WaitDelay = time.Second
	err = jail.Start(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		pr.closeFiles()
		return nil, err
	}
	pr.cmd, pr.group = cmd, watchGroup(cmd, jail)
	return pr, nil
}

// awaitReady reads the program's first line, which must be "ready".
func (pr *proc) awaitReady(ctx context.Context, deadline time.Time) error {
	line, err := pr.readLine(ctx, deadline)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("no %q line within the call timeout", lineReady)
	case err != nil:
		return fmt.Errorf("%w before its %q line", err, lineReady)
	case trimEOL(line) == lineReady:
		return nil
	}
	if r, err := parseReplyLine(line); err == nil && r.Status == sample.Failed {
		return fmt.Errorf("the client failed to start: %s", r.Err)
	}
	return fmt.Errorf("first line %q, want %q", clip(trimEOL(line)), lineReady)
}

// call has the program make one call. healthy is false when the program
// cannot take another call (it broke the protocol, died or overran).
func (pr *proc) call(ctx context.Context, deadline time.Time) (r Reply, healthy bool) {
	if pr.rd.Buffered() > 0 {
		return Reply{Status: sample.Failed, Err: "persistent client wrote a line no call asked for"}, false
	}
	pr.calls++
	_ = pr.in.SetWriteDeadline(deadline)
	if _, err := pr.in.Write([]byte(lineCall + " " + strconv.FormatUint(pr.calls, 10) + "\n")); err != nil {
		return pr.broken(ctx, err)
	}
	line, err := pr.readLine(ctx, deadline)
	if err != nil {
		return pr.broken(ctx, err)
	}
	r, err = parseReplyLine(trimEOL(line))
	if err != nil {
		return Reply{Status: sample.Failed, Err: "persistent client: " + err.Error()}, false
	}
	return r, true
}

// broken classes a call whose write or read failed.
func (pr *proc) broken(ctx context.Context, err error) (Reply, bool) {
	switch {
	case ctx.Err() != nil:
		return Reply{Status: sample.Cancelled, Err: "tester stopped"}, false
	case errors.Is(err, os.ErrDeadlineExceeded):
		return Reply{Status: sample.Timeout, Err: "no reply within the timeout"}, false
	}
	return Reply{Status: sample.Failed, Err: "persistent client: " + err.Error()}, false
}

// readLine reads one line of at most MaxExtrasText bytes, by deadline or
// until ctx is done (then os.ErrDeadlineExceeded). At the end of the
// output it says how the program ended.
func (pr *proc) readLine(ctx context.Context, deadline time.Time) (string, error) {
	_ = pr.out.SetReadDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = pr.out.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	b, err := pr.rd.ReadSlice('\n')
	switch {
	case err == nil:
		return string(b), nil
	case errors.Is(err, bufio.ErrBufferFull):
		return "", fmt.Errorf("a line over %d bytes", MaxExtrasText)
	case errors.Is(err, io.EOF):
		return "", fmt.Errorf("exited (%s)", pr.howEnded())
	}
	return "", err
}

// howEnded waits a little for the program to be reaped and says how it
// ended, with the tail of its stderr.
func (pr *proc) howEnded() string {
	how := "still running, its stdout closed"
	select {
	case <-pr.group.reaped:
		how = "exit status 0"
		if pr.group.waitErr != nil {
			how = pr.group.waitErr.Error()
		}
	case <-time.After(time.Second):
	}
	if s := pr.stderr.String(); s != "" {
		how += ": " + s
	}
	return how
}

// end stops the program's group (SIGTERM, then SIGKILL after grace) and
// returns once it is reaped, with the signal that ended it (0: it had
// exited on its own).
func (pr *proc) end(grace time.Duration) syscall.Signal {
	sig := pr.group.stop(grace)
	<-pr.group.reaped
	pr.closeFiles()
	return sig
}

// stop ends the program gently: the end of its stdin, and after grace
// end; it returns once the program is reaped.
func (pr *proc) stop(grace time.Duration) {
	_ = pr.in.Close()
	select {
	case <-pr.group.exited:
	case <-time.After(grace):
	}
	pr.end(grace)
}

func (pr *proc) closeFiles() {
	pr.once.Do(func() {
		_ = pr.in.Close()
		_ = pr.out.Close()
	})
}

// trimEOL removes a line's "\n" or "\r\n".
func trimEOL(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
	}
	if n := len(s); n > 0 && s[n-1] == '\r' {
		s = s[:n-1]
	}
	return s
}

// syncTail is a tailBuffer written by exec's stderr copier while calls
// read it.
type syncTail struct {
	mu sync.Mutex
	t  tailBuffer
}

func (s *syncTail) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Write(p)
}

func (s *syncTail) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.String()
}
