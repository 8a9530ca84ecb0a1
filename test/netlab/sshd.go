package netlab

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// makeKeys makes the client key every host authorizes.
func (l *Lab) makeKeys() error {
	l.KeyFile = filepath.Join(l.Dir, "id_ed25519")
	l.KnownHosts = filepath.Join(l.Dir, "known_hosts")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "netlab-"+l.Name, "-f", l.KeyFile); err != nil {
		return err
	}
	pub, err := os.ReadFile(l.KeyFile + ".pub")
	if err != nil {
		return fmt.Errorf("client key: %w", err)
	}
	return os.WriteFile(filepath.Join(l.Dir, "authorized_keys"), pub, 0o600)
}

// writeKnownHosts lists every host's key under its address.
func (l *Lab) writeKnownHosts() error {
	var b strings.Builder
	for _, h := range l.Hosts {
		pub, err := os.ReadFile(filepath.Join(h.Dir, "ssh_host_ed25519_key.pub"))
		if err != nil {
			return fmt.Errorf("host key of %s: %w", h.Name, err)
		}
		fields := strings.Fields(string(pub))
		if len(fields) < 2 {
			return fmt.Errorf("host key of %s: malformed %q", h.Name, pub)
		}
		fmt.Fprintf(&b, "%s %s %s\n", h.Addr, fields[0], fields[1])
	}
	return os.WriteFile(l.KnownHosts, []byte(b.String()), 0o600)
}

// writeSSHDConfig makes h's host key and sshd_config.
func (h *Host) writeSSHDConfig(ctx context.Context) error {
	key := filepath.Join(h.Dir, "ssh_host_ed25519_key")
	if err := run(ctx, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", h.Name, "-f", key); err != nil {
		return err
	}
	lines := []string{
		"Port 22",
		"ListenAddress 0.0.0.0",
		"HostKey " + key,
		"PidFile none",
		"AuthorizedKeysFile " + filepath.Join(h.lab.Dir, "authorized_keys"),
		"UsePAM no",
		"StrictModes no",
		"PermitRootLogin prohibit-password",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"AllowTcpForwarding yes",
		"UseDNS no",
		"PrintMotd no",
		"Subsystem sftp internal-sftp",
	}
	lines = append(lines, h.lab.opts.SSHDConfig...)
	return os.WriteFile(filepath.Join(h.Dir, "sshd_config"), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

// Start starts h's sshd (again, after Stop) and waits until it accepts
// connections.
func (h *Host) Start() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sshd != nil {
		return nil
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return fmt.Errorf("netlab: sshd privilege separation directory: %w", err)
	}
	logFile := filepath.Join(h.Dir, "sshd.log")
	cmd := exec.Command("nsenter", "-t", fmt.Sprint(h.anchor.Process.Pid), "-n", "-m", "-u", "--",
		"/usr/sbin/sshd", "-D", "-f", filepath.Join(h.Dir, "sshd_config"), "-E", logFile)
	cmd.Dir = "/"
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("netlab: starting sshd of %s: %w", h.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	h.sshd, h.sshdDone = cmd, done
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(h.Addr, "22"), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			log, _ := os.ReadFile(logFile)
			h.sshd = nil
			return fmt.Errorf("netlab: sshd of %s exited: %s", h.Name, strings.TrimSpace(string(log)))
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("netlab: sshd of %s does not accept connections on %s:22 after 20 s: %w", h.Name, h.Addr, err)
		}
	}
}

// Stop stops h's sshd daemon, so that new connections to h are refused
// (a host that is down for ssh). Sessions already open go on; Start brings
// the daemon back.
func (h *Host) Stop() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sshd == nil {
		return nil
	}
	_ = h.sshd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.sshdDone:
	case <-time.After(5 * time.Second):
		_ = h.sshd.Process.Kill()
		<-h.sshdDone
	}
	h.sshd = nil
	return nil
}
