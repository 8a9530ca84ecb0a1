package testbed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// SSH starts testers on hosts reached over SSH (docs/design/009): it
// checks every candidate host in parallel, deploys the diperf binary and
// the deploy files over SFTP, starts each tester in a session of the
// host's one SSH connection, where it speaks the protocol over the
// session's stdio, forwards its clock syncs to the controller's time
// server, and at the end kills what the run started and removes what it
// put there. Use it by pointer.
type SSH struct {
	Binary  string // the diperf binary for hosts like this one ("" = this executable)
	Version string // what `diperf version` says here ("" = ask Binary)
	// Spool has each tester keep its unacknowledged samples on its host
	// (diperf tester --spool), fetched before cleanup (Retriever); NewSSH
	// sets it.
	Spool bool

	tb      experiment.Testbed
	timeout time.Duration
	runID   string
	runDir  string // the run directory (Plan.Dir), where SSHRunFile goes
	files   []deployFile
	keys    *hostKeys
	auth    []ssh.AuthMethod
	unagent func()

	binMu sync.Mutex
	bins  map[string]deployFile // by local path, hashed once

	timeTarget atomic.Value // the controller's TCP time server (string)

	mu      sync.Mutex
	hosts   []*sshHost          // every host connected, ready or not yet cleaned
	ready   map[string]*sshHost // by name
	handles []*sshHandle
}

var _ Testbed = (*SSH)(nil)

// spaceMargin is the free space a host must have beyond the binary and
// the deploy files: room for the testers' logs and spools.
const spaceMargin = 64 << 20

// NewSSH returns the ssh testbed for an experiment's testbed section; it
// connects to nothing before Prepare.
func NewSSH(tb experiment.Testbed) *SSH {
	t := &SSH{Spool: true, tb: tb, timeout: tb.ConnectTimeout.D(), bins: map[string]deployFile{}, ready: map[string]*sshHost{}}
	if t.timeout <= 0 {
		t.timeout = experiment.DefaultConnectTimeout
	}
	if t.tb.WorkDir == "" {
		t.tb.WorkDir = experiment.DefaultWorkDir
	}
	return t
}

// runRel is the run's own folder, relative to the work dir.
func (t *SSH) runRel() string { return "runs/" + t.runID }

// Prepare checks every candidate host in parallel, each within
// testbed.connect_timeout: login, OS/arch, free disk; then deploys and
// checks the binary runs. Hosts that fail are skipped with their reason
// (Ready.Skipped) as long as min_hosts remain, else Prepare fails naming
// every host's reason. The hosts ready are recorded in the run directory
// (SSHRunFile), for `diperf fetch`.
func (t *SSH) Prepare(ctx context.Context, p Plan) (Ready, error) {
	t.runDir = p.Dir
	if err := t.setup(); err != nil {
		return Ready{}, err
	}
	targets, err := sshTargets(t.tb.Hosts, homePath(t.tb.HostsFile), t.tb.User)
	if err != nil {
		return Ready{}, err
	}
	problems := make([]error, len(targets))
	hosts := make([]*sshHost, len(targets))
	var wg sync.WaitGroup
	for i, tg := range targets {
		wg.Go(func() { hosts[i], problems[i] = t.prepareHost(ctx, tg) })
	}
	wg.Wait()
	r := Ready{PerHost: t.tb.TestersPerHost, TimeOverTCP: true, Skipped: map[string]string{}}
	t.mu.Lock()
	for i, h := range hosts {
		if problems[i] != nil {
			r.Skipped[targets[i].name] = reason(problems[i])
			continue
		}
		t.hosts = append(t.hosts, h)
		t.ready[h.t.name] = h
		r.Hosts = append(r.Hosts, h.t.name)
		r.Notes = append(r.Notes, h.note())
	}
	t.mu.Unlock()
	need := t.tb.MinHosts
	if need <= 0 {
		need = len(targets)
	}
	if len(r.Hosts) < need {
		return Ready{}, t.tooFew(len(r.Hosts), need, problems)
	}
	if r.Shared, err = shareTesters(p.Testers, t.tb.TestersPerHost, r.Hosts, r.Skipped, allSetup(problems)); err != nil {
		return Ready{}, err
	}
	if err := t.recordRun(t.hosts); err != nil {
		return Ready{}, err
	}
	return r, nil
}

// tooFew is the error of a testbed with fewer usable hosts than needed:
// every host's reason, exit code 2 when each is the user's to fix.
func (t *SSH) tooFew(usable, need int, problems []error) error {
	var all []error
	for _, p := range problems {
		if p != nil {
			all = append(all, p)
		}
	}
	setup := allSetup(problems)
	err := fmt.Errorf("ssh testbed: %d usable host(s), and the run needs %d (testbed.min_hosts, 0 = every host):\n%w", usable, need, errors.Join(all...))
	if setup {
		return errs.Usage(err, "fix the hosts above, or lower testbed.min_hosts")
	}
	return err
}

// allSetup says every problem of problems (nil: none) is the user's to
// fix: a host key, a login.
func allSetup(problems []error) bool {
	for _, p := range problems {
		var hp *hostProblem
		if p != nil && (!errors.As(p, &hp) || !hp.setup) {
			return false
		}
	}
	return true
}

// setup reads what every host shares: the login keys, known_hosts, the
// deploy files and the run id.
func (t *SSH) setup() error {
	var err error
	if t.auth, t.unagent, err = sshAuth(homePath(t.tb.IdentityFile)); err != nil {
		return err
	}
	if t.keys, err = newHostKeys(homePath(t.tb.KnownHosts), t.tb.TrustNewHosts); err != nil {
		return err
	}
	if t.files, err = deployFiles(t.tb.Deploy); err != nil {
		return err
	}
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return fmt.Errorf("ssh testbed: run id: %w", err)
	}
	t.runID = hex.EncodeToString(id)
	if t.Version == "" {
		bin, err := t.localBinary()
		if err != nil {
			return err
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			return fmt.Errorf("ssh testbed: %s version: %w", bin, err)
		}
		t.Version = strings.TrimSpace(string(out))
	}
	return nil
}

func (t *SSH) localBinary() (string, error) {
	if t.Binary != "" {
		return t.Binary, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("ssh testbed: finding the diperf binary: %w", err)
	}
	return exe, nil
}

// clientConfig is how to log in to tg.
func (t *SSH) clientConfig(tg sshTarget) ssh.ClientConfig {
	return ssh.ClientConfig{User: tg.user, Auth: t.auth, HostKeyCallback: t.keys.callback(tg.name), Timeout: t.timeout}
}

// binaryFor returns the diperf binary to deploy on an OS/arch: this one
// when it matches, else testbed.tester_binaries'.
func (t *SSH) binaryFor(osArch string) (deployFile, error) {
	local := t.tb.TesterBinaries[osArch]
	if osArch == runtime.GOOS+"/"+runtime.GOARCH && local == "" {
		var err error
		if local, err = t.localBinary(); err != nil {
			return deployFile{}, err
		}
	}
	if local == "" {
		return deployFile{}, fmt.Errorf("no diperf binary for %s: add it to testbed.tester_binaries (%s: PATH)", osArch, osArch)
	}
	t.binMu.Lock()
	defer t.binMu.Unlock()
	if f, ok := t.bins[local]; ok {
		return f, nil
	}
	f, err := hashFile(local)
	if err != nil {
		return deployFile{}, fmt.Errorf("testbed.tester_binaries[%s]: %w", osArch, err)
	}
	f.remote, f.mode = "bin/diperf", 0o755
	t.bins[local] = f
	return f, nil
}

// Start starts one tester on s.Host.
func (t *SSH) Start(ctx context.Context, s Spec) (Handle, error) {
	t.mu.Lock()
	h := t.ready[s.Host]
	t.mu.Unlock()
	if h == nil {
		return nil, fmt.Errorf("ssh testbed: %q is not a ready host", s.Host)
	}
	hd, err := t.startTester(ctx, h, s)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.handles = append(t.handles, hd)
	t.mu.Unlock()
	return hd, nil
}

// reason is a host's problem without the host's name.
func reason(err error) string {
	var hp *hostProblem
	if errors.As(err, &hp) {
		return hp.err.Error()
	}
	return err.Error()
}
