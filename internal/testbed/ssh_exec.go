package testbed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/diperf/diperf/internal/experiment"
)

// SSHExec runs the commands of monitor endpoints on their hosts (a log
// endpoint's tail -F, a command endpoint's command) with the ssh
// testbed's login: user, identity_file, known_hosts, trust_new_hosts and
// connect_timeout. One connection per host carries every command, a
// session each; a connection that broke is dialed again.
type SSHExec struct {
	tb      experiment.Testbed
	timeout time.Duration

	mu      sync.Mutex
	setup   bool
	err     error // of setup
	auth    []ssh.AuthMethod
	unagent func()
	keys    *hostKeys
	conns   map[string]*ssh.Client
	closed  bool
}

// NewSSHExec logs in as tb says (its ssh fields; their defaults when the
// testbed is not ssh). Nothing is read nor dialed until a command runs.
func NewSSHExec(tb experiment.Testbed) *SSHExec {
	x := &SSHExec{tb: tb, timeout: tb.ConnectTimeout.D(), conns: map[string]*ssh.Client{}}
	if x.timeout <= 0 {
		x.timeout = experiment.DefaultConnectTimeout
	}
	return x
}

// Exec runs argv on host ([user@]host[:port]) and returns its standard
// output as it comes, as monitor.Exec says: Read gives io.EOF once it
// exited 0, else an error with its exit status and the end of its
// standard error; Close, or ctx's end, stops it. The command runs under
// sh, and is stopped (SIGTERM) when its session's input closes: when
// Close or ctx ends it, or when the connection drops.
func (x *SSHExec) Exec(ctx context.Context, host string, argv []string) (io.ReadCloser, error) {
	if len(argv) == 0 {
		return nil, errors.New("ssh exec: no command to run")
	}
	s, err := x.session(ctx, host)
	if err != nil {
		return nil, err
	}
	out, err := s.StdoutPipe()
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s on %s: %w", argv[0], host, err)
	}
	stdin, err := s.StdinPipe() // held open: its end stops the command
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s on %s: %w", argv[0], host, err)
	}
	errTail := &tailBuffer{max: 1 << 10}
	s.Stderr = errTail
	if err := s.Start(watchedCommand(argv)); err != nil {
		s.Close()
		return nil, fmt.Errorf("%s on %s: %w", argv[0], host, err)
	}
	st := &sshStream{s: s, in: stdin, out: out, errTail: errTail, what: argv[0] + " on " + host}
	st.stop = context.AfterFunc(ctx, st.kill)
	return st, nil
}

// watchedCommand runs argv under sh with a watcher that stops it
// (SIGTERM) once the session's input closes: sshd closes it when the
// session ends, which alone would leave a quiet tail -F running.
func watchedCommand(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return posix(`exec 3<&0; "$@" </dev/null 3<&- & p=$!; `+
		`{ cat >/dev/null; kill -TERM $p; } <&3 >/dev/null 2>&1 3<&- & w=$!; `+
		`exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; exit $s`) + " sh " + strings.Join(q, " ")
}

// session opens a session to host on its connection, dialing one when
// there is none or it broke.
func (x *SSHExec) session(ctx context.Context, host string) (*ssh.Session, error) {
	for range 2 {
		c, err := x.client(ctx, host)
		if err != nil {
			return nil, err
		}
		s, err := c.NewSession()
		if err == nil {
			return s, nil
		}
		x.drop(host, c)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ssh %s: %w", host, err)
		}
	}
	return nil, fmt.Errorf("ssh %s: no session on a fresh connection", host)
}

// client is host's connection, dialed when there is none.
func (x *SSHExec) client(ctx context.Context, host string) (*ssh.Client, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil, errors.New("ssh exec: closed")
	}
	if c := x.conns[host]; c != nil {
		return c, nil
	}
	if err := x.login(); err != nil {
		return nil, err
	}
	tg, err := parseTarget(host, x.tb.User)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	c, err := dialHost(dctx, tg, ssh.ClientConfig{User: tg.user, Auth: x.auth, HostKeyCallback: x.keys.callback(tg.name), Timeout: x.timeout})
	if err != nil {
		return nil, err
	}
	x.conns[host] = c
	return c, nil
}

// login reads the keys and known_hosts once. Called with mu held.
func (x *SSHExec) login() error {
	if x.setup {
		return x.err
	}
	x.setup = true
	if x.tb.User == "" {
		x.tb.User = currentUser()
	}
	if x.auth, x.unagent, x.err = sshAuth(homePath(x.tb.IdentityFile)); x.err != nil {
		return x.err
	}
	x.keys, x.err = newHostKeys(homePath(x.tb.KnownHosts), x.tb.TrustNewHosts)
	return x.err
}

// drop forgets host's connection c (it broke).
func (x *SSHExec) drop(host string, c *ssh.Client) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.conns[host] == c {
		delete(x.conns, host)
	}
	c.Close()
}

// Close ends every connection and what runs on them.
func (x *SSHExec) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	for h, c := range x.conns {
		c.Close()
		delete(x.conns, h)
	}
	if x.unagent != nil {
		x.unagent()
	}
	return nil
}
