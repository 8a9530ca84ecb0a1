package testbed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// sshHost is one host of the ssh testbed: its SSH connection, which
// carries every session of the run to it (checks, SFTP, testers, time
// syncs), and what the run put there. sshd caps the sessions of one
// connection (MaxSessions, 10 by default): when it refuses one, the host
// gets another connection, which takes the next sessions.
type sshHost struct {
	t       sshTarget
	client  *ssh.Client                 // the first connection: checks, SFTP, the time-sync forward
	dial    func() (*ssh.Client, error) // another connection to the host
	connMu  sync.Mutex
	extra   []*ssh.Client // more connections, for sessions past MaxSessions
	sftp    *sftp.Client
	osArch  string       // as Go names it, e.g. linux/amd64
	workDir string       // absolute, on the host
	freeKiB int64        // free space in workDir
	fwd     net.Listener // sshd's remote listener for time syncs (nil: refused)
	fwdNote string
	bin     deployFile // the diperf binary for its OS/arch

	mu      sync.Mutex
	made    []string // paths the run created, in order (removed in reverse)
	uploads int      // files uploaded
	kept    int      // deploy files already there, unchanged
	stale   int      // folders of dead runs removed
	// keptRuns are the dead runs whose testers' spools stayed (never
	// fetched): "RUNID (N)".
	keptRuns []string
}

// hostProblem is why a host cannot take testers; setup says it is the
// user's to fix (a key, a binary, disk space), not the network's.
type hostProblem struct {
	host  string
	err   error
	setup bool
}

func (p *hostProblem) Error() string { return p.host + ": " + p.err.Error() }
func (p *hostProblem) Unwrap() error { return p.err }

// dialHost logs in to t. The handshake is bounded by ctx; the connection
// then lives until closed.
func dialHost(ctx context.Context, t sshTarget, cfg ssh.ClientConfig) (*ssh.Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", t.addr)
	var ne net.Error
	if err != nil && (ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout()) {
		return nil, &hostProblem{t.name, fmt.Errorf("unreachable: no answer within testbed.connect_timeout: %w", err), false}
	}
	if err != nil {
		return nil, &hostProblem{t.name, fmt.Errorf("unreachable: %w", err), false}
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, t.addr, &cfg)
	if !stop() {
		if err == nil {
			c.Close()
		}
		return nil, &hostProblem{t.name, fmt.Errorf("no SSH login within testbed.connect_timeout: %w", ctx.Err()), false}
	}
	switch {
	case errors.Is(err, errHostKey):
		conn.Close()
		return nil, &hostProblem{t.name, err, true}
	case err != nil && strings.Contains(err.Error(), "unable to authenticate"):
		conn.Close()
		return nil, &hostProblem{t.name, fmt.Errorf("login as %q refused (%v): install the public key in the host's authorized_keys, or give testbed.identity_file", t.user, err), true}
	case err != nil:
		conn.Close()
		return nil, &hostProblem{t.name, fmt.Errorf("SSH handshake: %w", err), false}
	}
	return ssh.NewClient(c, chans, reqs), nil
}

// run runs a shell command on the host with stdin as its input and
// returns its output; a failure carries its stderr.
func (h *sshHost) run(cmd string, stdin []byte) ([]byte, error) {
	s, err := h.newSession()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr = &out, &errb
	if stdin != nil {
		s.Stdin = bytes.NewReader(stdin)
	}
	if err := s.Run(posix(cmd)); err != nil {
		return out.Bytes(), fmt.Errorf("%s: %w: %s", firstWord(cmd), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func firstWord(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return cmd
	}
	return f[0]
}

// probeScript asks the host its OS and machine, makes the work dir (and
// says which top directory it had to make, if any), and reports the free
// space there, one answer per line.
const probeScript = `uname -sm || exit 1
W=%s; d="$W"; top=
while [ ! -e "$d" ]; do top="$d"; d=$(dirname -- "$d"); done
mkdir -p -- "$W" || exit 1
T=; if [ -n "$top" ]; then T=$(cd -- "$top" && pwd) || exit 1; fi
cd -- "$W" && pwd || exit 1
echo "$T"
df -Pk . | tail -n 1`

// probe learns the host's OS/arch, work dir and free space; it records a
// work dir it made, so that cleanup removes it.
func (h *sshHost) probe(workDir string) error {
	out, err := h.run(fmt.Sprintf(probeScript, shellQuote(workDir)), nil)
	if err != nil {
		return &hostProblem{h.t.name, fmt.Errorf("checking the host: %w", err), false}
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 4 {
		return &hostProblem{h.t.name, fmt.Errorf("checking the host: unexpected answer %q", out), false}
	}
	h.osArch = goOSArch(lines[0])
	h.workDir = lines[1]
	if lines[2] != "" {
		h.made = append(h.made, lines[2])
	}
	f := strings.Fields(lines[3])
	if len(f) < 4 {
		return &hostProblem{h.t.name, fmt.Errorf("df in %s: unexpected answer %q", h.workDir, lines[3]), false}
	}
	if h.freeKiB, err = strconv.ParseInt(f[3], 10, 64); err != nil {
		return &hostProblem{h.t.name, fmt.Errorf("df in %s: %q is no number of KiB", h.workDir, f[3]), false}
	}
	return nil
}

// goOSArch turns `uname -sm` into Go's os/arch.
func goOSArch(uname string) string {
	f := strings.Fields(uname)
	if len(f) < 2 {
		return strings.ToLower(uname)
	}
	os := strings.ToLower(f[0])
	arch := map[string]string{"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64",
		"i386": "386", "i686": "386", "armv7l": "arm", "armv6l": "arm", "riscv64": "riscv64",
		"ppc64le": "ppc64le", "s390x": "s390x", "mips64": "mips64", "loongarch64": "loong64"}[f[len(f)-1]]
	if arch == "" {
		arch = f[len(f)-1]
	}
	return os + "/" + arch
}

// posix runs cmd with sh, whatever the login shell (fish, csh) is: exec
// keeps the pid, so the command is still its session's leader.
func posix(cmd string) string { return "exec sh -c " + shellQuote(cmd) }

// newSession opens a session on the host's newest connection, and on a
// new connection when sshd refuses it there (MaxSessions reached).
func (h *sshHost) newSession() (*ssh.Session, error) {
	h.connMu.Lock()
	defer h.connMu.Unlock()
	c := h.client
	if len(h.extra) > 0 {
		c = h.extra[len(h.extra)-1]
	}
	s, err := c.NewSession()
	var oe *ssh.OpenChannelError
	// sshd refuses a session past MaxSessions as "administratively
	// prohibited" or (OpenSSH) "connect failed: open failed".
	if err == nil || !errors.As(err, &oe) || h.dial == nil {
		if err != nil {
			return nil, fmt.Errorf("opening an SSH session: %w", err)
		}
		return s, nil
	}
	nc, derr := h.dial()
	if derr != nil {
		return nil, fmt.Errorf("opening an SSH session: %w; and another connection: %w", err, derr)
	}
	h.extra = append(h.extra, nc)
	if s, err = nc.NewSession(); err != nil {
		return nil, fmt.Errorf("opening an SSH session on a new connection: %w", err)
	}
	return s, nil
}

// close ends the host's connections and what they carry.
func (h *sshHost) close() {
	h.connMu.Lock()
	for _, c := range h.extra {
		c.Close()
	}
	h.extra = nil
	h.connMu.Unlock()
	if h.fwd != nil {
		h.fwd.Close()
	}
	if h.sftp != nil {
		h.sftp.Close()
	}
	if h.client != nil {
		h.client.Close()
	}
}
