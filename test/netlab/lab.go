package netlab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// stateRoot holds one directory per lab: keys, sshd configs, logs, owner.
const stateRoot = "/run/netlab"

// Options says what lab New builds.
type Options struct {
	// Hosts is how many hosts (1 to 250).
	Hosts int
	// Prefix names the lab family: 1 to 6 lowercase letters or digits
	// ("netlab" when empty). Each lab adds 4 random hex digits.
	Prefix string
	// Subnet is the hosts' IPv4 network, e.g. "10.77.3.0/24"; the bridge
	// takes the first address, the hosts the next ones. Empty: a random
	// free 10.x.y.0/24.
	Subnet string
	// DiskBytes is the size of each host's disk behind /tmp and /root
	// (tmpfs: only what is written uses memory). 0 means 256 MiB.
	DiskBytes int64
	// SSHDConfig holds extra sshd_config lines for every host (OpenSSH's
	// defaults otherwise, e.g. MaxSessions 10, as on a real host).
	SSHDConfig []string
}

// Lab is a running test bed.
type Lab struct {
	// Name is the lab's unique name: Prefix plus 4 hex digits.
	Name string
	// Hosts are the lab's hosts, in order.
	Hosts []*Host
	// Bridge is the bridge device in the root namespace.
	Bridge string
	// BridgeAddr is the root namespace's address on the bridge: where a
	// controller listens for the hosts.
	BridgeAddr string
	// Subnet is the hosts' network.
	Subnet netip.Prefix
	// KeyFile is a private key that logs in as root on every host.
	KeyFile string
	// KnownHosts is a known_hosts file with every host's key.
	KnownHosts string
	// Dir is the lab's state directory.
	Dir string

	opts      Options
	delayMu   sync.Mutex
	delay     *delayer
	closeOnce sync.Once
	closeErr  error
}

var prefixRE = regexp.MustCompile(`^[a-z0-9]{1,6}$`)

// New builds a lab of o.Hosts hosts and registers its teardown with
// t.Cleanup. It skips the test when not root or when a tool is missing and
// cannot be installed; it fails the test when the lab cannot be built.
func New(t testing.TB, o Options) *Lab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("netlab: needs root (network namespaces, sshd, iptables); run the e2e tests as root, as CI does")
	}
	if err := ensureTools(); err != nil {
		t.Skipf("netlab: %v", err)
	}
	if o.Prefix == "" {
		o.Prefix = "netlab"
	}
	if !prefixRE.MatchString(o.Prefix) || o.Hosts < 1 || o.Hosts > 250 {
		t.Fatalf("netlab: Prefix %q must be 1-6 lowercase letters or digits and Hosts (%d) 1 to 250", o.Prefix, o.Hosts)
	}
	if o.DiskBytes == 0 {
		o.DiskBytes = 256 << 20
	}
	for _, gone := range cleanStale(o.Prefix) {
		t.Logf("netlab: removed %s, left behind by a test that died", gone)
	}
	start := time.Now()
	l, err := build(o)
	if l != nil {
		t.Cleanup(func() {
			if err := l.Close(); err != nil {
				t.Errorf("netlab: tearing down %s: %v", l.Name, err)
			}
		})
	}
	if err != nil {
		t.Fatalf("netlab: %v", err)
	}
	t.Logf("netlab: %s: %d hosts on %s up in %v", l.Name, len(l.Hosts), l.Subnet, time.Since(start).Round(time.Millisecond))
	return l
}

// build makes the lab; on error the returned lab (if any) holds what must
// be torn down.
func build(o Options) (*Lab, error) {
	suffix := make([]byte, 2)
	_, _ = rand.Read(suffix)
	name := o.Prefix + hex.EncodeToString(suffix)
	l := &Lab{Name: name, Bridge: name + "br", Dir: filepath.Join(stateRoot, name), opts: o}
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	if err := writeOwner(l.Dir); err != nil {
		return l, err
	}
	subnet, err := pickSubnet(o)
	if err != nil {
		return l, err
	}
	l.Subnet = subnet
	if err := os.WriteFile(filepath.Join(l.Dir, "subnet"), []byte(subnet.String()), 0o600); err != nil {
		return l, fmt.Errorf("state directory: %w", err)
	}
	bridgeAddr := subnet.Addr().Next()
	l.BridgeAddr = bridgeAddr.String()
	if err := l.makeKeys(); err != nil {
		return l, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cidr := fmt.Sprintf("%s/%d", bridgeAddr, subnet.Bits())
	if err := run(ctx, "ip", "link", "add", l.Bridge, "type", "bridge"); err != nil {
		return l, err
	}
	if err := runAll(ctx, [][]string{
		{"ip", "addr", "add", cidr, "dev", l.Bridge},
		{"ip", "link", "set", l.Bridge, "up"},
	}); err != nil {
		return l, err
	}
	addr := bridgeAddr
	for i := range o.Hosts {
		addr = addr.Next()
		l.Hosts = append(l.Hosts, newHost(l, i, addr))
	}
	if err := parallel(l.Hosts, func(h *Host) error { return h.start(ctx) }); err != nil {
		return l, err
	}
	return l, l.writeKnownHosts()
}

// SSHArgs are the arguments of /usr/bin/ssh that run command on h as root
// with the lab's key and known_hosts (strict checking, no prompt).
func (l *Lab) SSHArgs(h *Host, command ...string) []string {
	args := []string{"-F", "/dev/null", "-i", l.KeyFile, "-o", "IdentitiesOnly=yes",
		"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
		"-o", "UserKnownHostsFile=" + l.KnownHosts, "-o", "GlobalKnownHostsFile=/dev/null",
		"-o", "ConnectTimeout=10", "-p", fmt.Sprint(h.Port), "root@" + h.Addr}
	return append(args, command...)
}

// Close tears the lab down: every process in its hosts, its namespaces,
// bridge, iptables rules and state. Calling it again does nothing.
func (l *Lab) Close() error {
	l.closeOnce.Do(func() {
		l.delayMu.Lock()
		if l.delay != nil {
			l.delay.close()
		}
		l.delayMu.Unlock()
		l.closeErr = teardown(l.Name)
		for _, h := range l.Hosts {
			h.reap()
		}
	})
	return l.closeErr
}

// ensureTools checks the programs the lab runs, installing the Debian
// packages of missing ones when apt-get is there.
func ensureTools() error {
	need := map[string]string{"ip": "iproute2", "tc": "iproute2", "/usr/sbin/sshd": "openssh-server",
		"ssh-keygen": "openssh-client", "ssh": "openssh-client", "iptables": "iptables",
		"nsenter": "util-linux", "unshare": "util-linux"}
	missing := func() []string {
		var pkgs []string
		for tool, pkg := range need {
			if _, err := lookPath(tool); err != nil && !contains(pkgs, pkg) {
				pkgs = append(pkgs, pkg)
			}
		}
		return pkgs
	}
	pkgs := missing()
	if len(pkgs) == 0 {
		return nil
	}
	if _, err := lookPath("apt-get"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		_ = run(ctx, "apt-get", append([]string{"install", "-y", "-qq", "-o", "DPkg::Lock::Timeout=120"}, pkgs...)...)
	}
	if pkgs = missing(); len(pkgs) > 0 {
		return fmt.Errorf("missing Debian packages %s and could not install them: apt-get install %s",
			strings.Join(pkgs, ", "), strings.Join(pkgs, " "))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// parallel runs f for every host, a few at a time, and returns the first error.
func parallel(hosts []*Host, f func(*Host) error) error {
	errs := make([]error, len(hosts))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(h)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
