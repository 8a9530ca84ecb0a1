// Package slurmlab brings up a real Slurm cluster on this machine for a
// test, and tears it down when the test ends: Debian's slurmctld, one
// slurmd per node (slurmd -N nX, all on loopback, each on its own port),
// and a munged of its own (own socket, own key), all with their state in
// a temporary directory. Nodes claim more CPUs than the machine has
// (SlurmdParameters=config_overrides), so that tens of tasks run on two
// cores. There is no accounting: sacct fails; use squeue and scontrol.
//
// It needs root (slurmd and munged run as root and munge) and the Debian
// packages slurmctld, slurmd, slurm-client and munge (scripts/test.sh
// installs them); without them a test skips, in CI it fails.
package slurmlab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Options shape a cluster.
type Options struct {
	Nodes int // slurmd daemons, n1..nN (0 = 3)
	CPUs  int // CPUs each node claims (0 = 16)
}

// Cluster is a running Slurm cluster of this machine.
type Cluster struct {
	Dir   string   // its temporary directory: configuration, state, logs
	Conf  string   // its slurm.conf (SLURM_CONF)
	Nodes []string // its node names
	// Partition is the default partition, holding every node; Closed is a
	// partition in state DOWN, whose jobs stay pending.
	Partition, Closed string

	t       testing.TB
	munged  *exec.Cmd
	daemons []*exec.Cmd
}

// commands the cluster needs.
var commands = []string{"slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo", "munged", "mungekey", "runuser"}

// Start brings up a cluster and registers its teardown with t.Cleanup.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("slurmlab: a local Slurm cluster needs root (slurmd, munged); CI runs the tests as root")
	}
	if missing := missingCommands(); len(missing) > 0 {
		msg := "slurmlab: " + strings.Join(missing, ", ") + " not found; install the Debian packages slurmctld slurmd slurm-client munge (scripts/test.sh does)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	o.Nodes = cmpOr(o.Nodes, 3)
	o.CPUs = cmpOr(o.CPUs, 16)
	dir, err := os.MkdirTemp("", "slurmlab-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Partition: "lab", Closed: "closed", t: t}
	t.Cleanup(c.stop)
	if err := os.Chmod(dir, 0o755); err != nil { // munged must reach its socket below
		t.Fatal(err)
	}
	if err := c.startMunge(); err != nil {
		t.Fatalf("slurmlab: %v", err)
	}
	if err := c.writeConf(o); err != nil {
		t.Fatalf("slurmlab: %v", err)
	}
	if err := c.startDaemons(); err != nil {
		t.Fatalf("slurmlab: %v", err)
	}
	if err := c.waitIdle(20 * time.Second); err != nil {
		t.Fatalf("slurmlab: %v\n%s", err, c.Logs())
	}
	return c
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func missingCommands() []string {
	var missing []string
	for _, name := range commands {
		if _, err := exec.LookPath(name); err != nil {
			missing = append(missing, name)
		}
	}
	return missing
}

// Env is the environment the cluster's client commands need
// (SLURM_CONF), to append to a command's environment.
func (c *Cluster) Env() []string { return []string{"SLURM_CONF=" + c.Conf} }

// Command returns a Slurm client command aimed at this cluster.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.Env()...)
	return cmd
}

// Run runs a Slurm client command and returns its standard output; it
// fails the test if the command fails.
func (c *Cluster) Run(name string, args ...string) string {
	c.t.Helper()
	out, err := c.Try(name, args...)
	if err != nil {
		c.t.Fatalf("slurmlab: %v", err)
	}
	return out
}

// Try runs a Slurm client command and returns its standard output, or an
// error that holds what it wrote on standard error.
func (c *Cluster) Try(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), c.Env()...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Jobs returns squeue's lines for the jobs still in the queue (pending,
// running or completing; one line per array task): "JOBID|STATE|REASON|NODE".
func (c *Cluster) Jobs() []string {
	c.t.Helper()
	out := c.Run("squeue", "--noheader", "--array", "--format=%i|%T|%r|%N")
	return strings.Fields(out)
}

// Logs returns the tail of every daemon log, for a failure message.
func (c *Cluster) Logs() string {
	var b strings.Builder
	logs, _ := filepath.Glob(filepath.Join(c.Dir, "log", "*"))
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "== %s\n%s\n", l, data)
	}
	return b.String()
}

// startMunge starts a munged of the cluster's own, on a socket in its
// directory with a key made for it, as the munge user.
func (c *Cluster) startMunge() error {
	mdir := filepath.Join(c.Dir, "munge")
	u, err := user.Lookup("munge")
	if err != nil {
		return fmt.Errorf("the munge user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Mkdir(mdir, 0o755); err != nil {
		return err
	}
	key := filepath.Join(mdir, "munge.key")
	if out, err := exec.Command("mungekey", "--create", "--keyfile="+key).CombinedOutput(); err != nil {
		return fmt.Errorf("mungekey: %w: %s", err, out)
	}
	for _, p := range []string{mdir, key} {
		if err := os.Chown(p, uid, gid); err != nil {
			return err
		}
	}
	c.munged = exec.Command("runuser", "-u", "munge", "--", "munged", "--foreground",
		"--socket="+c.socket(), "--key-file="+key, "--pid-file="+filepath.Join(mdir, "munged.pid"),
		"--seed-file="+filepath.Join(mdir, "munged.seed"), "--log-file="+filepath.Join(mdir, "munged.log"))
	if err := c.start(c.munged, "munged"); err != nil {
		return err
	}
	return waitFor(5*time.Second, func() bool {
		_, err := os.Stat(c.socket())
		return err == nil
	}, "munged's socket "+c.socket())
}

func (c *Cluster) socket() string { return filepath.Join(c.Dir, "munge", "munge.socket") }

// start starts one daemon in the foreground, its output in log/NAME.out.
func (c *Cluster) start(cmd *exec.Cmd, name string) error {
	if err := os.MkdirAll(filepath.Join(c.Dir, "log"), 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(c.Dir, "log", name+".out"))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), c.Env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal signal reaches it
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	return nil
}

// startDaemons starts slurmctld and one slurmd per node.
func (c *Cluster) startDaemons() error {
	ctld := exec.Command("slurmctld", "-D", "-i")
	if err := c.start(ctld, "slurmctld"); err != nil {
		return err
	}
	c.daemons = append(c.daemons, ctld)
	for _, n := range c.Nodes {
		d := exec.Command("slurmd", "-D", "-N", n)
		if err := c.start(d, "slurmd-"+n); err != nil {
			return err
		}
		c.daemons = append(c.daemons, d)
	}
	return nil
}

// waitIdle waits until every node is idle.
func (c *Cluster) waitIdle(limit time.Duration) error {
	want := strconv.Itoa(len(c.Nodes))
	return waitFor(limit, func() bool {
		out, err := c.Try("sinfo", "--noheader", "--partition="+c.Partition, "--format=%T %D")
		return err == nil && strings.TrimSpace(out) == "idle "+want
	}, "every node idle")
}

func waitFor(limit time.Duration, ok func() bool, what string) error {
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %v", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// freePorts returns n distinct free TCP ports of loopback.
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// stop tears the cluster down: every job cancelled, the daemons stopped
// by pid, any process left of it (slurmstepd, a job's processes: they
// hold SLURM_CONF=Conf) killed, munged stopped, and its directory removed.
func (c *Cluster) stop() {
	if len(c.daemons) > 0 {
		_, _ = c.Try("scancel", "--full", "--user=root")
		_ = waitFor(5*time.Second, func() bool {
			out, err := c.Try("squeue", "--noheader")
			return err != nil || strings.TrimSpace(out) == ""
		}, "no job")
	}
	for _, d := range c.daemons {
		stopProcess(d)
	}
	c.killStrays()
	if c.munged != nil {
		stopProcess(c.munged)
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		c.t.Errorf("slurmlab: removing %s: %v", c.Dir, err)
	}
}

// stopProcess sends SIGTERM, waits up to 5 s, then SIGKILL, and reaps.
func stopProcess(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		return
	case <-time.After(5 * time.Second):
	}
	_ = cmd.Process.Kill()
	<-done
}

// killStrays kills every process whose environment names this cluster's
// configuration, and waits (up to 5 s) for them to go.
func (c *Cluster) killStrays() {
	mark := []byte("SLURM_CONF=" + c.Conf + "\x00")
	self := os.Getpid()
	find := func() []int {
		var pids []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			if err == nil && bytes.Contains(append(env, 0), mark) {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	err := waitFor(5*time.Second, func() bool {
		pids := find()
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		return len(pids) == 0
	}, "no process of the cluster")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		c.t.Errorf("slurmlab: %v: %v", err, find())
	}
}
