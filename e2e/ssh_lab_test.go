package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sshLab is a set of real OpenSSH sshd hosts on loopback, each in its own
// mount namespace with its own tmpfs at workDir: the hosts share the
// network and the user, but each has its own work dir (as hosts would),
// where the ssh testbed puts its files.
type sshLab struct {
	dir      string // keys, known_hosts, configs
	workDir  string // the testbed's work_dir; a mount point in each host
	identity string // the client's private key
	known    string // known_hosts file
	hosts    []*sshLabHost
}

// sshLabHost is one sshd of the lab.
type sshLabHost struct {
	name string // root@127.0.0.1:PORT, as listed in testbed.hosts
	port int
	cmd  *exec.Cmd
	mnt  string // its mount namespace (/proc/PID/ns/mnt)
}

// sshNeedLab skips a test that cannot run sshd in namespaces.
func sshNeedLab(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the ssh lab runs sshd in mount namespaces: run as root (scripts/test.sh in CI)")
	}
	for _, p := range []string{"/usr/sbin/sshd", "/usr/bin/ssh-keygen", "/usr/bin/unshare"} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("the ssh lab needs %s (apt-get install openssh-server openssh-client util-linux)", p)
		}
	}
}

// sshStartLab starts n sshd hosts; sizes[i] is host i's work dir tmpfs
// size ("" = 256m). Everything is torn down when the test ends.
func sshStartLab(t *testing.T, n int, sizes map[int]string) *sshLab {
	t.Helper()
	sshNeedLab(t)
	d := t.TempDir()
	lab := &sshLab{dir: d, workDir: filepath.Join(d, "work"), identity: filepath.Join(d, "id"), known: filepath.Join(d, "known_hosts")}
	if err := os.MkdirAll(lab.workDir, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	sshKeygen(t, lab.identity)
	pub, err := os.ReadFile(lab.identity + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		size := sizes[i]
		if size == "" {
			size = "256m"
		}
		lab.hosts = append(lab.hosts, lab.start(t, i, size))
	}
	return lab
}

func sshKeygen(t *testing.T, path string) {
	t.Helper()
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
}

const sshdConfig = `Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile none
AuthorizedKeysFile %s
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
AllowTcpForwarding yes
Subsystem sftp internal-sftp
LogLevel ERROR
`

// start starts host i's sshd in a new mount namespace with a tmpfs of
// size at the lab's work dir.
func (lab *sshLab) start(t *testing.T, i int, size string) *sshLabHost {
	t.Helper()
	hd := filepath.Join(lab.dir, fmt.Sprintf("h%d", i))
	if err := os.MkdirAll(hd, 0o700); err != nil {
		t.Fatal(err)
	}
	sshKeygen(t, filepath.Join(hd, "host_key"))
	port := sshFreePort(t)
	conf := filepath.Join(hd, "sshd_config")
	body := fmt.Sprintf(sshdConfig, port, filepath.Join(hd, "host_key"), filepath.Join(lab.dir, "authorized_keys"))
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("mount -t tmpfs -o size=%s tmpfs %s && exec /usr/sbin/sshd -D -e -f %s", size, lab.workDir, conf)
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script)
	logf, err := os.Create(filepath.Join(hd, "sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &sshLabHost{name: fmt.Sprintf("root@127.0.0.1:%d", port), port: port, cmd: cmd}
	t.Cleanup(func() { h.stop() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd on port %d never came up", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.mnt, _ = os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", cmd.Process.Pid))
	return h
}

func sshFreePort(t *testing.T) int {
	t.Helper()
	_, p, _ := net.SplitHostPort(freeAddr(t))
	n, _ := strconv.Atoi(p)
	return n
}

// stop kills the host's sshd and every process left in its namespace.
func (h *sshLabHost) stop() {
	if h.cmd == nil {
		return
	}
	for _, pid := range h.procs() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
	h.cmd = nil
}

// procs returns the live processes of the host's mount namespace.
func (h *sshLabHost) procs() []int {
	if h.mnt == "" {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid)); err == nil && ns == h.mnt {
			if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(st), ") Z ") {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// leftovers returns the host's processes other than its sshd listener,
// once they are gone or after 10 s: a session's sshd may take a moment to
// exit after the client closed it.
func (h *sshLabHost) leftovers() []string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for _, pid := range h.procs() {
			if pid == h.cmd.Process.Pid {
				continue
			}
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			left = append(left, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// files lists what is under the host's work dir (as the host sees it).
func (h *sshLabHost) files(lab *sshLab) []string {
	root := fmt.Sprintf("/proc/%d/root%s", h.cmd.Process.Pid, lab.workDir)
	var out []string
	_ = filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err == nil && p != root {
			out = append(out, strings.TrimPrefix(p, root+"/"))
		}
		return nil
	})
	return out
}

// path is a path under the host's work dir, as seen from here.
func (h *sshLabHost) path(lab *sshLab, rel string) string {
	return fmt.Sprintf("/proc/%d/root%s/%s", h.cmd.Process.Pid, lab.workDir, rel)
}
