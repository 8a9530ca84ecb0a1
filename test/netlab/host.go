package netlab

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Host is one host of the lab.
type Host struct {
	// Name is the host's hostname and network namespace name.
	Name string
	// Addr is the host's IPv4 address on the bridge.
	Addr string
	// Port is its sshd's port (22).
	Port int
	// Dir is the host's state directory on the machine (sshd config, host
	// key, sshd.log); not visible as any path inside the host.
	Dir string

	lab    *Lab
	addr   netip.Addr
	veth   string
	anchor *exec.Cmd // holds the host's mount and UTS namespaces
	done   chan struct{}

	mu          sync.Mutex
	sshd        *exec.Cmd
	sshdDone    chan struct{}
	partitioned bool
}

func newHost(l *Lab, i int, addr netip.Addr) *Host {
	name := fmt.Sprintf("%s-h%d", l.Name, i)
	return &Host{Name: name, Addr: addr.String(), Port: 22, Dir: filepath.Join(l.Dir, name),
		lab: l, addr: addr, veth: fmt.Sprintf("%sv%d", l.Name, i)}
}

// NS is the path of the host's network namespace handle.
func (h *Host) NS() string { return filepath.Join("/run/netns", h.Name) }

// start builds the host: namespace, link, disk, hostname, sshd.
func (h *Host) start(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Join(h.Dir, "disk"), 0o700); err != nil {
		return fmt.Errorf("state directory of %s: %w", h.Name, err)
	}
	if err := h.writeSSHDConfig(ctx); err != nil {
		return err
	}
	cidr := fmt.Sprintf("%s/%d", h.Addr, h.lab.Subnet.Bits())
	if err := runAll(ctx, [][]string{
		{"ip", "netns", "add", h.Name},
		{"ip", "link", "add", h.veth, "type", "veth", "peer", "name", "eth0", "netns", h.Name},
		{"ip", "link", "set", h.veth, "master", h.lab.Bridge, "up"},
		{"ip", "-n", h.Name, "addr", "add", cidr, "dev", "eth0"},
		{"ip", "-n", h.Name, "link", "set", "eth0", "up"},
		{"ip", "-n", h.Name, "link", "set", "lo", "up"},
		{"ip", "-n", h.Name, "route", "add", "default", "via", h.lab.BridgeAddr},
	}); err != nil {
		return err
	}
	if err := h.startAnchor(); err != nil {
		return err
	}
	return h.Start()
}

// startAnchor starts the process that holds the host's mount and UTS
// namespaces: its disk on /tmp and /root, its hostname.
func (h *Host) startAnchor() error {
	stage := filepath.Join(h.Dir, "disk")
	script := fmt.Sprintf(`set -e
mount -t tmpfs -o size=%d,mode=0755 netlab-%s %s
mkdir %s/tmp %s/root
chmod 1777 %s/tmp
chmod 0700 %s/root
mount --bind %s/tmp /tmp
mount --bind %s/root /root
umount -l %s
hostname %s
echo ready
exec sleep infinity`, h.lab.opts.DiskBytes, h.Name, stage, stage, stage, stage, stage, stage, stage, stage, h.Name)
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("netlab: %w", err)
	}
	defer r.Close()
	logf, err := os.Create(filepath.Join(h.Dir, "anchor.log"))
	if err != nil {
		w.Close()
		return fmt.Errorf("netlab: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command("ip", "netns", "exec", h.Name,
		"unshare", "--uts", "--mount", "--propagation", "private", "sh", "-c", script)
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = w, logf
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("netlab: starting the namespaces of %s: %w", h.Name, err)
	}
	h.anchor, h.done = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(h.done) }()
	line, _ := bufio.NewReader(r).ReadString('\n')
	if line != "ready\n" {
		<-h.done
		log, _ := os.ReadFile(filepath.Join(h.Dir, "anchor.log"))
		return fmt.Errorf("netlab: setting up %s (disk, hostname) failed: %s", h.Name, log)
	}
	return nil
}

// Run runs argv inside the host (its network, mount and UTS namespaces, as
// root, working directory /root) and returns its combined output.
func (h *Host) Run(ctx context.Context, argv ...string) ([]byte, error) {
	args := append([]string{"-t", fmt.Sprint(h.anchor.Process.Pid), "-n", "-m", "-u", "--wd=/root", "--"}, argv...)
	cmd := exec.CommandContext(ctx, "nsenter", args...)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("netlab: %v on %s: %w: %s", argv, h.Name, err, out)
	}
	return out, nil
}

// Path is the path on the machine of path p as the host sees it (through
// /proc/PID/root of a process of the host), to read or write its files
// from the test.
func (h *Host) Path(p string) string {
	return filepath.Join(fmt.Sprintf("/proc/%d/root", h.anchor.Process.Pid), p)
}

// inNS runs a command in the host's network namespace only.
func (h *Host) inNS(argv ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return run(ctx, "nsenter", append([]string{"--net=" + h.NS(), "--"}, argv...)...)
}

// reap waits for the lab's own processes of h to be gone (after teardown
// killed them).
func (h *Host) reap() {
	for _, ch := range []chan struct{}{h.done, h.sshdDone} {
		if ch == nil {
			continue
		}
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
		}
	}
}
