package testbed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/contain"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/transport"
)

// Local starts testers as processes on this machine, in the working
// directory of the controller, which is also their clients'. Deploy files
// are therefore not copied: Prepare checks that each one exists, relative
// to that directory. Use it by pointer: it keeps the testers it started,
// for Cleanup.
type Local struct {
	Binary  string   // the diperf binary ("" = this executable)
	Deploy  []string // files and folders the clients need (testbed.deploy)
	PerHost int      // testbed.testers_per_host; this machine takes every tester whatever it is

	mu      sync.Mutex
	started []*localHandle
}

var (
	_ Testbed   = (*Local)(nil)
	_ Retriever = (*localHandle)(nil)
	_ Settler   = (*localHandle)(nil)
)

// NewLocal returns the local testbed for an experiment's testbed section.
// testbed.hosts may only name this machine (IsLocalHost).
func NewLocal(tb experiment.Testbed) (*Local, error) {
	for _, h := range tb.Hosts {
		if !IsLocalHost(h) {
			return nil, errs.Usage(fmt.Errorf("testbed.hosts: %q is not this machine, and the %q provider runs every tester on this machine",
				h, experiment.ProviderLocal), "leave testbed.hosts empty (or list only localhost) for a local run")
		}
	}
	return &Local{Deploy: tb.Deploy, PerHost: tb.TestersPerHost}, nil
}

// Prepare checks that every deploy file exists and that this machine can
// take the run's testers (at most experiment.MaxLocalTesters), and offers
// this machine.
func (l *Local) Prepare(_ context.Context, p Plan) (Ready, error) {
	if p.Testers > experiment.MaxLocalTesters {
		return Ready{}, errs.Usage(fmt.Errorf("the %q provider runs at most %d testers, every one a process of this machine; this run has %d",
			experiment.ProviderLocal, experiment.MaxLocalTesters, p.Testers), "spread the testers over more hosts (another testbed.provider)")
	}
	var missing []error
	for _, f := range l.Deploy {
		if _, err := os.Stat(f); err != nil {
			missing = append(missing, fmt.Errorf("testbed.deploy: %w", err))
		}
	}
	if len(missing) > 0 {
		return Ready{}, errs.Usage(errors.Join(missing...),
			"a deploy path is relative to the directory diperf runs in, which is the clients' working directory on the local testbed")
	}
	return Ready{Hosts: []string{LocalHost}, PerHost: l.PerHost}, nil
}

// Start starts one tester process. It runs in its own session (and so its
// own process group) so that a Ctrl-C at the terminal reaches the
// controller alone, which then stops the testers in order, and so that
// whatever the tester's clients leave behind can be found and killed when
// the tester ends (killSession). The secret goes to the tester over an
// inherited pipe (its fd 3, --secret-fd 3), never in its environment or
// argv, which its clients could read under /proc.
func (l *Local) Start(_ context.Context, s Spec) (Handle, error) {
	if s.Host != "" && !IsLocalHost(s.Host) {
		return nil, fmt.Errorf("local testbed: cannot start a tester on %q, another host", s.Host)
	}
	bin := l.Binary
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("local testbed: finding the diperf binary: %w", err)
		}
		bin = exe
	}
	secret, err := secretPipe(s.Token)
	if err != nil {
		return nil, fmt.Errorf("local testbed: %w", err)
	}
	defer secret.Close() // the child holds its own copy
	spool := spoolPath(s.LogPath)
	cmd := exec.Command(bin, localArgs(s, spool)...)
	cmd.ExtraFiles = []*os.File{secret} // fd 3 = SecretFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if s.LogPath != "" {
		f, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("local testbed: tester log: %w", err)
		}
		defer f.Close() // the child holds its own copy
		cmd.Stdout, cmd.Stderr = f, f
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("local testbed: starting tester %d: %w", s.Slot, err)
	}
	host, _ := os.Hostname()
	h := &localHandle{cmd: cmd, host: host, spool: spool, done: make(chan struct{})}
	go h.wait()
	l.mu.Lock()
	l.started = append(l.started, h)
	l.mu.Unlock()
	return h, nil
}

// secretPipe returns the read end of a pipe that holds secret and then
// ends (the write end is closed): a tester reads it to EOF.
func secretPipe(secret []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("secret pipe: %w", err)
	}
	_, err = w.Write(secret) // a pipe buffers 64 KiB or more: a secret fits
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("secret pipe: %w", err)
	}
	return r, nil
}

// Cleanup waits for the testers it started to exit until ctx is done, then
// kills the ones still running; it says how many it had to kill. It
// removes the testers' spools the controller settled (Settler).
func (l *Local) Cleanup(ctx context.Context) error {
	l.mu.Lock()
	hs := l.started
	l.started = nil
	l.mu.Unlock()
	killed := 0
	for _, h := range hs {
		select {
		case <-h.done:
			continue
		case <-ctx.Done():
		}
		if !h.exited() && h.Kill() == nil {
			killed++
		}
		select { // reaped, and its session swept, before the controller exits
		case <-h.done:
		case <-time.After(reapWait):
		}
	}
	for _, h := range hs { // the others stay for diperf analyze to merge
		if h.spool != "" && h.settled.Load() {
			_ = os.Remove(h.spool)
		}
	}
	if killed > 0 {
		return fmt.Errorf("local testbed: killed %d tester(s) still running at cleanup", killed)
	}
	return nil
}

// spoolPath is where a local tester keeps its own samples: next to its
// log, named like it with the extension .spool ("" when it has no log).
func spoolPath(logPath string) string {
	if logPath == "" {
		return ""
	}
	return strings.TrimSuffix(logPath, filepath.Ext(logPath)) + ".spool"
}

// Retrieve reads the tester's own spool from this machine's disk
// (testbed.Retriever); nil, nil when it has none.
func (h *localHandle) Retrieve(ctx context.Context) ([]byte, error) {
	if h.spool == "" {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(h.spool)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("local testbed: reading the tester's spool: %w", err)
	}
	return b, nil
}

// SpoolSettled says the controller holds what it needs of the tester's
// spool: Cleanup may remove it (testbed.Settler).
func (h *localHandle) SpoolSettled() { h.settled.Store(true) }

// reapWait bounds how long Cleanup waits for a killed tester to be reaped.
const reapWait = 2 * time.Second

// localHandle is a started tester process, reaped by its own goroutine.
type localHandle struct {
	cmd   *exec.Cmd
	host  string
	spool string // the tester's own sample spool ("" = none)
	// settled says the controller holds what it needs of the spool: Cleanup
	// removes it (else `diperf analyze` merges it).
	settled atomic.Bool
	done    chan struct{} // closed once the process has been reaped
	err     error         // its exit, valid after done

	mu     sync.Mutex
	reaped bool // the tester may be reaped: its pid may name another process
}

// wait waits for the tester to exit and, before reaping it (its pid, the
// session id, stays taken until then), kills what is left in its session
// unless it exited with status 0: a tester that ends normally has ended
// every client it started, and a scan of /proc per tester would cost
// O(testers × processes) on a large local run.
func (h *localHandle) wait() {
	pid := h.cmd.Process.Pid
	if clean, ok := waitExitedNoReap(pid); ok && !clean {
		h.mu.Lock()
		killSession(pid)
		contain.SweepTester(pid) // what its jail still holds (a cgroup it could not remove)
		h.mu.Unlock()
	}
	h.mu.Lock()
	h.reaped = true
	h.mu.Unlock()
	h.err = h.cmd.Wait()
	close(h.done)
}

// exited reports whether the tester has been reaped.
func (h *localHandle) exited() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

func (h *localHandle) Host() string { return h.host }
func (h *localHandle) PID() int     { return h.cmd.Process.Pid }

// Wait waits for the tester to exit.
func (h *localHandle) Wait() error {
	<-h.done
	return h.err
}

// Kill kills the tester's whole session: its own process group, and every
// group its clients made. It does nothing once the tester may have been
// reaped: its pid may belong to another process by then (wait has swept
// the session before reaping).
func (h *localHandle) Kill() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reaped {
		return nil
	}
	contain.SweepTester(h.cmd.Process.Pid) // its clients' jail, while the tester still holds it
	err := syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	killSession(h.cmd.Process.Pid)
	return err
}

// localArgs are the arguments of the local tester of s, spooling to
// spool ("" = none): it dials the controller (transport.Dial's flag) and
// reads its token on SecretFD.
func localArgs(s Spec, spool string) []string {
	args := []string{"tester", transport.Dial.Flag(), s.Controller, "--slot", strconv.Itoa(s.Slot),
		"--secret-fd", strconv.Itoa(SecretFD)}
	if spool != "" {
		args = append(args, SpoolFlag, spool)
	}
	return append(args, s.ExtraArgs...)
}
