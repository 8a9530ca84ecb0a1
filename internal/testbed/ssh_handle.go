package testbed

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/diperf/diperf/internal/transport"
)

// pidMarker starts the line on which a tester's shell says its pid (the
// tester's pid after exec, and its session id: sshd makes each session's
// command a session leader) before anything else on its stderr.
const pidMarker = "diperf-pid "

// sshHandle is one tester started in an SSH session.
type sshHandle struct {
	host  *sshHost
	slot  int
	pid   int
	sess  *ssh.Session
	run   string // the run's directory on the host, relative to the work dir
	bin   string // the diperf binary on the host
	done  chan struct{}
	err   error
	spool string // the tester's spool on the host ("" = none)
	// settled says the controller holds what it needs of the spool: the
	// cleanup removes it (else it stays for diperf fetch).
	settled atomic.Bool
}

var (
	_ Handle    = (*sshHandle)(nil)
	_ Retriever = (*sshHandle)(nil)
	_ Settler   = (*sshHandle)(nil)
)

// SpoolSettled says the controller holds what it needs of the tester's
// spool: the cleanup may remove it (testbed.Settler).
func (h *sshHandle) SpoolSettled() { h.settled.Store(true) }

func (h *sshHandle) Host() string { return h.host.t.name }
func (h *sshHandle) PID() int     { return h.pid }

// Wait returns once the tester's session has ended.
func (h *sshHandle) Wait() error {
	<-h.done
	return h.err
}

// Kill kills the tester's whole session on its host (its clients too)
// from another SSH session, then closes its own.
func (h *sshHandle) Kill() error {
	select {
	case <-h.done:
		return nil
	default:
	}
	cmd := fmt.Sprintf("%s sweep --dir %s --run %s --slot %d || kill -KILL -- -%d",
		shellQuote(h.bin), shellQuote(h.host.workDir), shellQuote(path.Base(h.run)), h.slot, h.pid)
	_, err := h.host.run(cmd, nil)
	h.sess.Close()
	return err
}

// Retrieve fetches the tester's spool over SFTP (nil, nil when it has
// none). It works until the testbed's Cleanup, which removes it.
func (h *sshHandle) Retrieve(ctx context.Context) ([]byte, error) {
	if h.spool == "" || h.host.sftp == nil {
		return nil, nil
	}
	type got struct {
		b   []byte
		err error
	}
	ch := make(chan got, 1)
	go func() {
		f, err := h.host.sftp.Open(h.spool)
		if errors.Is(err, fs.ErrNotExist) {
			ch <- got{}
			return
		}
		if err != nil {
			ch <- got{err: fmt.Errorf("%s: fetching the spool %s: %w", h.Host(), h.spool, err)}
			return
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		ch <- got{b, err}
	}()
	select {
	case g := <-ch:
		return g.b, g.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// testerCommand is the shell command that starts the tester of spec on
// the host: in the deploy folder, its pid said on stderr and recorded for
// diperf sweep, then exec'd.
func testerCommand(workDir, run string, s Spec, timeServer, spool string) string {
	files := path.Join(workDir, "files")
	pidFile := path.Join(workDir, run, "pids", strconv.Itoa(s.Slot))
	args := []string{shellQuote(path.Join(workDir, "bin", "diperf")), "tester", transport.Attached.Flag(), "--slot", strconv.Itoa(s.Slot)}
	if timeServer != "" {
		args = append(args, "--time-server", timeServer, "--time-transport", "tcp")
	}
	for _, a := range s.ExtraArgs {
		args = append(args, shellQuote(a))
	}
	if spool != "" {
		args = append(args, SpoolFlag, shellQuote(spool))
	}
	return fmt.Sprintf("cd -- %s && echo \"%s$$\" >&2 && echo $$ > %s && exec %s",
		shellQuote(files), pidMarker, shellQuote(pidFile), strings.Join(args, " "))
}

// startTester starts one tester in a new session of the host's connection
// and hands its stdio, once it has the secret, to s.Attach.
func (t *SSH) startTester(ctx context.Context, h *sshHost, s Spec) (*sshHandle, error) {
	sess, err := h.newSession()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.t.name, err)
	}
	stdin, err1 := sess.StdinPipe()
	stdout, err2 := sess.StdoutPipe()
	stderr, err3 := sess.StderrPipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%s: %w", h.t.name, err)
	}
	hd := &sshHandle{host: h, slot: s.Slot, sess: sess, run: t.runRel(), bin: h.abs("bin/diperf"), done: make(chan struct{})}
	if t.Spool {
		hd.spool = h.abs(path.Join(t.runRel(), "spool", strconv.Itoa(s.Slot)+".spool"))
	}
	timeServer := ""
	if h.fwd != nil && s.TimeServerTCP != "" {
		t.timeTarget.Store(s.TimeServerTCP)
		timeServer = h.fwd.Addr().String()
	}
	if err := sess.Start(posix(testerCommand(h.workDir, t.runRel(), s, timeServer, hd.spool))); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%s: starting the tester: %w", h.t.name, err)
	}
	pids := make(chan int, 1)
	go copyStderr(stderr, s.LogPath, pids)
	secret := base64.StdEncoding.EncodeToString(s.Token) + "\n"
	if _, err := io.WriteString(stdin, secret); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%s: sending the secret: %w", h.t.name, err)
	}
	go hd.wait()
	select {
	case hd.pid = <-pids:
	case <-ctx.Done():
		sess.Close()
		return nil, fmt.Errorf("%s: the tester did not start: %w", h.t.name, ctx.Err())
	case <-time.After(t.timeout):
		sess.Close()
		return nil, fmt.Errorf("%s: the tester did not start within testbed.connect_timeout (%v)", h.t.name, t.timeout)
	}
	if hd.pid == 0 {
		<-hd.done
		return nil, fmt.Errorf("%s: the tester did not start (%v); see its log %s", h.t.name, hd.err, s.LogPath)
	}
	if s.Attach != nil {
		// stdout is the session's channel itself: the connection's Close
		// must not close it, only stdin (EOF: the tester ends on its own),
		// or the tester's last words on stderr (its sample counts, why it
		// ended) are cut off. The session is closed once it has ended.
		s.Attach(transport.Stdio(struct{ io.Reader }{stdout}, stdin, "ssh", "ssh:"+h.t.name))
	}
	return hd, nil
}

// wait waits for the tester's session to end.
func (h *sshHandle) wait() {
	err := h.sess.Wait()
	var ee *ssh.ExitError
	var em *ssh.ExitMissingError
	switch {
	case errors.As(err, &ee) && ee.Signal() != "":
		h.err = fmt.Errorf("killed by signal %s on %s", ee.Signal(), h.Host())
	case errors.As(err, &ee):
		h.err = fmt.Errorf("exit status %d on %s", ee.ExitStatus(), h.Host())
	case errors.As(err, &em):
		h.err = fmt.Errorf("the SSH session to %s ended without an exit status (connection lost?)", h.Host())
	case err != nil:
		h.err = fmt.Errorf("SSH session to %s: %w", h.Host(), err)
	}
	h.sess.Close()
	close(h.done)
}

// copyStderr sends the pid the shell says first to pids (0 if it never
// does), then copies the tester's stderr to the log file (append).
func copyStderr(r io.Reader, logPath string, pids chan<- int) {
	var log io.Writer = io.Discard
	if logPath != "" {
		if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			defer f.Close()
			log = f
		}
	}
	br := bufio.NewReader(r)
	sent := false
	for !sent {
		line, err := br.ReadString('\n')
		if rest, ok := strings.CutPrefix(line, pidMarker); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(rest))
			pids <- pid
			sent = true
			continue
		}
		_, _ = io.WriteString(log, line)
		if err != nil {
			pids <- 0
			return
		}
	}
	_, _ = io.Copy(log, br)
}
