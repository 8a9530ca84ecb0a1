package contain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroupPoll is how often a cgroup jail looks whether it has emptied.
const cgroupPoll = 10 * time.Millisecond

// cgroup is a jail that is a cgroup v2 group: every process started in
// it, and all they fork, stay in it unless one moves itself out (which
// takes the right to write another group's cgroup.procs).
type cgroup struct {
	dir string // its folder in the cgroup2 file system
	fd  int    // dir, open: processes start in it (clone3 CLONE_INTO_CGROUP)
}

// jails counts the cgroups this process made.
var jails atomic.Int64

// newCgroup makes the jail's group under this process's own cgroup and
// checks that it can start processes in it and kill them all at once.
func newCgroup() (*cgroup, error) {
	parent, err := cgroupDir("self")
	if err != nil {
		return nil, err
	}
	name := JailName(os.Getpid())
	if n := jails.Add(1); n > 1 { // not the tester's first (tests)
		name += "-" + strconv.FormatInt(n, 10)
	}
	dir := filepath.Join(parent, name)
	err = os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrExist) { // a dead process's with our pid, if empty
		_ = os.Remove(dir)
		err = os.Mkdir(dir, 0o755)
	}
	if err != nil {
		return nil, fmt.Errorf("making a cgroup for the clients: %w", err)
	}
	c := &cgroup{dir: dir, fd: -1}
	if err := c.check(); err != nil {
		_ = c.remove()
		return nil, fmt.Errorf("cgroup %s: %w", dir, err)
	}
	return c, nil
}

// check checks that the group is one processes can be started in and
// killed at once (cgroup.kill, Linux 5.14), and opens it.
func (c *cgroup) check() error {
	if _, err := os.Stat(filepath.Join(c.dir, "cgroup.kill")); err != nil {
		return errors.New("it has no cgroup.kill (Linux 5.14 or later has it)")
	}
	if b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.type")); err == nil && strings.TrimSpace(string(b)) != "domain" {
		return fmt.Errorf("it is a %s group, which cannot hold processes of their own", strings.TrimSpace(string(b)))
	}
	fd, err := syscall.Open(c.dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	c.fd = fd
	return c.probe()
}

// probe starts a process in the group as Start does, to learn that the
// kernel lets this process put children there (clone3 into a cgroup,
// Linux 5.7, and the right to write both groups' cgroup.procs). The
// process then execs a file that cannot exist (the cgroup file system
// holds none but its own), so it ends at once with ENOENT, and ForkExec
// reaps it; any other error is the kernel refusing the group.
func (c *cgroup) probe() error {
	path := filepath.Join(c.dir, "diperf-probe")
	_, err := syscall.ForkExec(path, []string{path}, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: c.fd}})
	if errors.Is(err, syscall.ENOENT) {
		return nil
	}
	return fmt.Errorf("cannot start a process in it: %w", err)
}

// stop ends every process in the group: SIGTERM to each, then after
// grace cgroup.kill, and waits until the group is empty.
func (c *cgroup) stop(grace time.Duration) (int, syscall.Signal) {
	n := len(c.members())
	if n == 0 {
		return 0, 0
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := End(grace, c.signal, c.emptied(ctx))
	if sig == syscall.SIGKILL {
		wait, stop := context.WithTimeout(context.Background(), stopWait)
		<-c.emptied(wait)
		stop()
	}
	return n, sig
}

// signal sends sig to every process of the group: SIGKILL by cgroup.kill,
// which leaves none out, whatever forks meanwhile.
func (c *cgroup) signal(sig syscall.Signal) {
	if sig == syscall.SIGKILL {
		_ = os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0)
		return
	}
	for _, pid := range c.members() {
		_ = syscall.Kill(pid, sig)
	}
}

// members lists the processes in the group and in any group a client
// made under it.
func (c *cgroup) members() []int {
	var pids []int
	_ = filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(filepath.Join(p, "cgroup.procs"))
		for f := range strings.FieldsSeq(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return nil
	})
	return pids
}

// emptied returns a channel closed once the group holds no live
// process, looked for every cgroupPoll until ctx is done.
func (c *cgroup) emptied(ctx context.Context) <-chan struct{} {
	return once(ctx, func() bool { return !populated(c.dir) })
}

// once returns a channel closed once done reports true, asked every
// cgroupPoll until ctx is done.
func once(ctx context.Context, done func() bool) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for !done() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(cgroupPoll):
			}
		}
		close(ch)
	}()
	return ch
}

// populated reports whether the group at dir, or one under it, holds a
// live process (cgroup.events; a group that cannot be read holds none).
func populated(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	return err == nil && strings.Contains(string(b), "populated 1")
}

// remove removes the group, and any a client made under it, deepest
// first, once they are empty.
func (c *cgroup) remove() error {
	if c.fd >= 0 {
		_ = syscall.Close(c.fd)
		c.fd = -1
	}
	var dirs []string
	_ = filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	var err error
	for i := len(dirs) - 1; i >= 0; i-- {
		if e := os.Remove(dirs[i]); e != nil && !errors.Is(e, fs.ErrNotExist) {
			err = fmt.Errorf("removing the clients' cgroup: %w", e)
		}
	}
	return err
}
