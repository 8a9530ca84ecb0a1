package e2e

import (
	"bytes"
	"context"
	"errors"
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

	"github.com/diperf/diperf/test/netlab"
)

// TestLabNetlab checks the test bed the distributed tests stand on: each
// host answers ssh with its own hostname, /tmp and processes; partitions,
// delays, rate caps, full disks and stopped hosts do what they say; and
// nothing is left on the machine after Close.
func TestLabNetlab(t *testing.T) {
	lab := netlab.New(t, netlab.Options{Hosts: 3, Prefix: "lab", DiskBytes: 16 << 20})
	h0, h1 := lab.Hosts[0], lab.Hosts[1]

	t.Run("hostname", func(t *testing.T) {
		for _, h := range lab.Hosts {
			if out, err := labSSH(lab, h, "hostname"); err != nil || out != h.Name {
				t.Errorf("ssh %s hostname = %q, %v; want %q", h.Addr, out, err, h.Name)
			}
		}
	})
	t.Run("own /tmp", func(t *testing.T) {
		if out, err := labSSH(lab, h0, "echo hi >/tmp/labfile && cat /tmp/labfile"); err != nil || out != "hi" {
			t.Fatalf("writing /tmp/labfile on %s: %q, %v", h0.Name, out, err)
		}
		if out, err := labSSH(lab, h1, "test -e /tmp/labfile && echo there || echo absent"); err != nil || out != "absent" {
			t.Errorf("/tmp/labfile of %s seen on %s: %q, %v", h0.Name, h1.Name, out, err)
		}
		if _, err := os.Stat("/tmp/labfile"); err == nil {
			t.Errorf("/tmp/labfile of %s is in the machine's /tmp", h0.Name)
		}
		if files, err := h0.Files("/tmp"); err != nil || !labHas(files, "/tmp/labfile") {
			t.Errorf("Files(/tmp) of %s = %v, %v; want /tmp/labfile in it", h0.Name, files, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if out, err := h0.Run(ctx, "sh", "-c", "hostname; pwd; cat /tmp/labfile"); err != nil || string(out) != h0.Name+"\n/root\nhi\n" {
			t.Errorf("Run on %s: %q, %v; want its hostname, /root and its /tmp/labfile", h0.Name, out, err)
		}
		if files, err := h1.Files("/tmp"); err != nil || len(files) != 0 {
			t.Errorf("Files(/tmp) of %s = %v, %v; want nothing", h1.Name, files, err)
		}
	})
	t.Run("processes", func(t *testing.T) { labCheckProcesses(t, lab) })
	t.Run("partition", func(t *testing.T) {
		labDial(t, h0, true)
		if err := h0.Partition(true); err != nil {
			t.Fatal(err)
		}
		labDial(t, h0, false)
		labDial(t, h1, true) // the others are not cut off
		if err := h0.Partition(false); err != nil {
			t.Fatal(err)
		}
		labDial(t, h0, true)
	})
	t.Run("delay", func(t *testing.T) { labCheckDelay(t, lab, h1) })
	t.Run("rate", func(t *testing.T) { labCheckRate(t, lab, lab.Hosts[2]) })
	t.Run("full disk", func(t *testing.T) {
		if err := h0.FillDisk(); err != nil {
			t.Fatal(err)
		}
		out, err := labSSH(lab, h0, "echo more >/tmp/more")
		if err == nil || !strings.Contains(out, "No space left on device") {
			t.Errorf("a write on a full disk: %q, %v; want No space left on device", out, err)
		}
		if err := os.WriteFile(h0.Path("/root/more"), []byte("x"), 0o600); !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("writing /root/more on a full disk: %v, want ENOSPC", err)
		}
		if out, err := labSSH(lab, h1, "echo more >/tmp/more && echo ok"); err != nil || out != "ok" {
			t.Errorf("the disk of %s is full too: %q, %v", h1.Name, out, err)
		}
		if err := h0.FreeDisk(); err != nil {
			t.Fatal(err)
		}
		if out, err := labSSH(lab, h0, "echo more >/tmp/more && echo ok"); err != nil || out != "ok" {
			t.Errorf("a write after FreeDisk: %q, %v", out, err)
		}
	})
	t.Run("stop", func(t *testing.T) {
		if err := h1.Stop(); err != nil {
			t.Fatal(err)
		}
		if out, err := labSSH(lab, h1, "true"); err == nil || !strings.Contains(out, "Connection refused") {
			t.Errorf("ssh to a stopped host: %q, %v; want Connection refused", out, err)
		}
		if err := h1.Start(); err != nil {
			t.Fatal(err)
		}
		if out, err := labSSH(lab, h1, "hostname"); err != nil || out != h1.Name {
			t.Errorf("ssh after Start: %q, %v", out, err)
		}
	})
	labCheckTeardown(t, lab)
}

// TestLabStale checks that a lab whose test died is removed by the next
// lab of the same family, and that a live lab is not.
func TestLabStale(t *testing.T) {
	dead := netlab.New(t, netlab.Options{Hosts: 2, Prefix: "labs"})
	live := netlab.New(t, netlab.Options{Hosts: 1, Prefix: "labs"})
	// dead's owner "dies": a PID that does not run.
	if err := os.WriteFile(filepath.Join(dead.Dir, "owner"), []byte("999999999 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	netlab.New(t, netlab.Options{Hosts: 1, Prefix: "labs"})
	if left := labLeftovers(t, dead.Name); len(left) > 0 {
		t.Errorf("the abandoned lab %s is still there: %v", dead.Name, left)
	}
	if out, err := labSSH(live, live.Hosts[0], "hostname"); err != nil || out != live.Hosts[0].Name {
		t.Errorf("the live lab %s was touched: ssh hostname = %q, %v", live.Name, out, err)
	}
	if err := dead.Close(); err != nil {
		t.Errorf("Close of a lab already removed: %v", err)
	}
}

// TestLabTenHosts measures how long ten hosts take to come up and go down.
func TestLabTenHosts(t *testing.T) {
	start := time.Now()
	lab := netlab.New(t, netlab.Options{Hosts: 10, Prefix: "labt"})
	up := time.Since(start)
	for _, h := range lab.Hosts {
		if out, err := labSSH(lab, h, "hostname"); err != nil || out != h.Name {
			t.Errorf("ssh %s hostname = %q, %v", h.Addr, out, err)
		}
	}
	start = time.Now()
	if err := lab.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("10 hosts: up in %v, down in %v", up.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if left := labLeftovers(t, lab.Name); len(left) > 0 {
		t.Errorf("left after Close: %v", left)
	}
}

// TestLabBroken checks that a lab that cannot come up fails its test with
// the reason and leaves nothing behind.
func TestLabBroken(t *testing.T) {
	var name string
	ft := &labFailT{TB: t}
	func() {
		defer func() { _ = recover() }()
		lab := netlab.New(ft, netlab.Options{Hosts: 2, Prefix: "labb", SSHDConfig: []string{"NoSuchOption yes"}})
		name = lab.Name
	}()
	ft.cleanup()
	if !strings.Contains(ft.msg, "NoSuchOption") {
		t.Errorf("New with a bad sshd option failed with %q, want sshd's complaint", ft.msg)
	}
	dirs, _ := filepath.Glob("/run/netlab/labb*")
	nss, _ := filepath.Glob("/run/netns/labb*")
	if len(dirs)+len(nss) > 0 || name != "" {
		t.Errorf("a lab that failed to come up left %v %v (%q)", dirs, nss, name)
	}
}

// labFailT records New's fatal error and cleanups instead of ending the test.
type labFailT struct {
	testing.TB
	msg      string
	cleanups []func()
}

func (f *labFailT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("netlab failed")
}
func (f *labFailT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *labFailT) cleanup() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// labSSH runs command on h with the real OpenSSH client; it returns the
// trimmed combined output.
func labSSH(lab *netlab.Lab, h *netlab.Host, command string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ssh", lab.SSHArgs(h, command)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func labHas(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// labSleepers are the processes of h running "sleep 30".
func labSleepers(t *testing.T, h *netlab.Host) []netlab.Proc {
	t.Helper()
	procs, err := h.Processes()
	if err != nil {
		t.Fatal(err)
	}
	var s []netlab.Proc
	for _, p := range procs {
		if p.Cmdline == "sleep 30" {
			s = append(s, p)
		}
	}
	return s
}

// labCheckProcesses: a sleep started over ssh is listed on its host only,
// and no longer once killed.
func labCheckProcesses(t *testing.T, lab *netlab.Lab) {
	h0, h1 := lab.Hosts[0], lab.Hosts[1]
	cmd := exec.Command("ssh", lab.SSHArgs(h0, "exec sleep 30")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var seen []netlab.Proc
	for deadline := time.Now().Add(10 * time.Second); len(seen) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		seen = labSleepers(t, h0)
	}
	if len(seen) != 1 {
		t.Fatalf("Processes of %s: sleep 30 started over ssh seen %d times, want once", h0.Name, len(seen))
	}
	if other := labSleepers(t, h1); len(other) != 0 {
		t.Errorf("Processes of %s lists the sleep of %s: %v", h1.Name, h0.Name, other)
	}
	if err := syscall.Kill(seen[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(labSleepers(t, h0)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("Processes still lists the killed sleep after 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// labDial checks that a TCP connect to h's sshd succeeds (or times out).
func labDial(t *testing.T, h *netlab.Host, want bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", net.JoinHostPort(h.Addr, "22"), 2*time.Second)
	if err == nil {
		c.Close()
	}
	if want && err != nil {
		t.Errorf("connect to %s: %v, want a connection", h.Name, err)
	}
	if !want && err == nil {
		t.Errorf("connect to partitioned %s succeeded", h.Name)
	}
}

// labConnectTime is the shortest of a few TCP connects to h's sshd: one
// round trip from the root namespace.
func labConnectTime(t *testing.T, h *netlab.Host) time.Duration {
	t.Helper()
	best := time.Hour
	for range 5 {
		start := time.Now()
		c, err := net.DialTimeout("tcp", net.JoinHostPort(h.Addr, "22"), 5*time.Second)
		if err != nil {
			t.Fatalf("connect to %s: %v", h.Name, err)
		}
		best = min(best, time.Since(start))
		c.Close()
	}
	return best
}

// labCheckDelay: a 30 ms one-way delay makes a round trip 60 ms or more
// (physics) and not much more (200 ms on a busy machine); 0 removes it.
func labCheckDelay(t *testing.T, lab *netlab.Lab, h *netlab.Host) {
	if err := h.SetDelay(30 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	rtt := labConnectTime(t, h)
	if rtt < 60*time.Millisecond || rtt >= 200*time.Millisecond {
		t.Errorf("round trip to %s with 30 ms each way: %v, want 60 ms to 200 ms", h.Name, rtt)
	}
	// Between two hosts: the delayed host's link, both ways, from the other one.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := lab.Hosts[0].Run(ctx, "bash", "-c", "s=$(date +%s%N); exec 3<>/dev/tcp/"+h.Addr+"/22; e=$(date +%s%N); echo $(( (e-s)/1000000 ))")
	if ms, perr := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || perr != nil || ms < 60 || ms >= 200 {
		t.Errorf("round trip from %s to %s: %q ms, %v; want 60 to 200", lab.Hosts[0].Name, h.Name, out, err)
	}
	if other := labConnectTime(t, lab.Hosts[0]); other >= 30*time.Millisecond {
		t.Errorf("round trip to %s (no delay) is %v", lab.Hosts[0].Name, other)
	}
	if out, err := labSSH(lab, h, "hostname"); err != nil || out != h.Name {
		t.Errorf("ssh through the delay: %q, %v", out, err)
	}
	if err := h.SetDelay(0); err != nil {
		t.Fatal(err)
	}
	if after := labConnectTime(t, h); after >= 30*time.Millisecond {
		t.Errorf("round trip to %s after SetDelay(0): %v", h.Name, after)
	}
	t.Logf("round trip with 30 ms each way: %v", rtt)
}

// labCheckRate: 1 MB through a 4 Mbit/s cap takes at least 2 s (1.5 s with
// the bucket's burst and slack).
func labCheckRate(t *testing.T, lab *netlab.Lab, h *netlab.Host) {
	if err := h.SetRate(4_000_000); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ssh", lab.SSHArgs(h, "head -c 1000000 /dev/zero")...).Output()
	took := time.Since(start)
	if err != nil || len(out) != 1000000 {
		t.Fatalf("1 MB over ssh: %d bytes, %v", len(out), err)
	}
	if took < 1500*time.Millisecond {
		t.Errorf("1 MB through 4 Mbit/s took %v, want ≥ 2 s", took)
	}
	if err := h.SetRate(0); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if _, err := exec.Command("ssh", lab.SSHArgs(h, "head -c 1000000 /dev/zero")...).Output(); err != nil {
		t.Fatal(err)
	}
	t.Logf("1 MB over ssh: %v capped at 4 Mbit/s, %v uncapped", took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// labCheckTeardown starts a detached process on a host, closes the lab and
// checks that nothing of it is left: process, namespace, link, iptables
// rule, state.
func labCheckTeardown(t *testing.T, lab *netlab.Lab) {
	h := lab.Hosts[0]
	out, err := labSSH(lab, h, "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!")
	if err != nil {
		t.Fatalf("starting a detached sleep: %q, %v", out, err)
	}
	procs, err := h.Processes()
	if err != nil || len(procs) == 0 {
		t.Fatalf("Processes of %s = %v, %v; want the detached sleep", h.Name, procs, err)
	}
	var pids []int
	for _, p := range procs {
		pids = append(pids, p.PID)
	}
	if err := lab.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := lab.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			cmdline, _ := os.ReadFile("/proc/" + itoa(pid) + "/cmdline")
			if len(cmdline) > 0 { // not a zombie waiting for its parent
				t.Errorf("process %d (%s) of %s survives Close", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}), h.Name)
			}
		}
	}
	if left := labLeftovers(t, lab.Name); len(left) > 0 {
		t.Errorf("left after Close: %v", left)
	}
}

// labLeftovers lists what of lab name is still on the machine.
func labLeftovers(t *testing.T, name string) []string {
	t.Helper()
	var left []string
	nss, _ := filepath.Glob("/run/netns/" + name + "-*")
	left = append(left, nss...)
	links, err := exec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		t.Fatal(err)
	}
	rules, err := exec.Command("iptables", "-w", "-S").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(links)+string(rules), "\n") {
		if strings.Contains(line, name) {
			left = append(left, line)
		}
	}
	if _, err := os.Stat("/run/netlab/" + name); err == nil {
		left = append(left, "/run/netlab/"+name)
	}
	return left
}
