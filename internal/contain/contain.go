// Package contain keeps every process a tester's clients start, and
// whatever those start in turn, in one jail, so that all of them end with
// the tester: a child that leaves its client's process group (setpgid) or
// session (setsid), or a daemon that forks twice, is still in it.
//
// On Linux the jail is a cgroup v2 group made under the tester's own
// (ModeCgroup) when the host lets the tester make one and start processes
// in it: the cgroup2 file system writable, cgroup.kill there (Linux 5.14),
// clone3 into a cgroup (Linux 5.7). Else the tester becomes the subreaper
// of its descendants (PR_SET_CHILD_SUBREAPER, ModeSubreaper): an orphan
// among them is reparented to the tester rather than to init, so every one
// of them stays its descendant, found in /proc. Stop ends whatever the
// jail holds: SIGTERM, a grace, SIGKILL. Elsewhere (ModeNone) the jail
// holds nothing: the clients' process groups are all there is.
package contain

import (
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Jail modes.
const (
	ModeAuto      = "auto"      // a cgroup when the host allows it, else the subreaper
	ModeCgroup    = "cgroup"    // a cgroup v2 group under the tester's own
	ModeSubreaper = "subreaper" // the tester is its descendants' subreaper
	ModeNone      = "none"      // nothing is held (not Linux)
)

// EnvMode is the environment variable that chooses a tester's jail mode
// (ModeAuto when unset or empty).
const EnvMode = "DIPERF_JAIL"

// Jail holds the processes a tester's clients start. A nil *Jail holds
// nothing: Start only starts, Stop and Close do nothing. Its methods are
// safe for concurrent use.
type Jail struct {
	mode string
	why  string // why ModeAuto took no cgroup
	once sync.Once
	cg   *cgroup    // ModeCgroup
	sr   *subreaper // ModeSubreaper, or the reaper of a cgroup jail in a container's init
	// starting is held for reading across every Start, and for writing
	// by the subreaper while it reaps orphans, so that it never reaps a
	// child that its exec.Cmd has yet to wait for.
	starting sync.RWMutex
}

// Open makes the jail of this process in mode ("" = ModeAuto). ModeAuto
// takes a cgroup when it can, else the subreaper; ModeCgroup fails when
// it cannot have a cgroup, saying why. The subreaper is the whole
// process's, and reaps every child of it that Start did not start: only
// a process that starts every child of its own with Start (diperf
// tester) may have one.
func Open(mode string) (*Jail, error) {
	switch mode {
	case "", ModeAuto, ModeCgroup, ModeSubreaper, ModeNone:
	default:
		return nil, fmt.Errorf("jail: unknown mode %q (want %s, %s, %s or %s)", mode, ModeAuto, ModeCgroup, ModeSubreaper, ModeNone)
	}
	if mode == "" {
		mode = ModeAuto
	}
	j := &Jail{mode: ModeNone}
	if mode == ModeNone {
		return j, nil
	}
	return j, j.open(mode)
}

// Mode says how the jail holds its processes.
func (j *Jail) Mode() string {
	if j == nil {
		return ModeNone
	}
	return j.mode
}

// String describes the jail for a log.
func (j *Jail) String() string {
	switch {
	case j == nil || j.mode == ModeNone:
		return "no jail (process groups only)"
	case j.cg != nil:
		return "cgroup " + j.cg.dir
	}
	return "subreaper (no cgroup: " + j.why + ")"
}

// Start starts cmd in the jail.
func (j *Jail) Start(cmd *exec.Cmd) error {
	if j == nil {
		return cmd.Start()
	}
	j.prepare(cmd)
	j.starting.RLock()
	defer j.starting.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	if j.sr != nil {
		j.sr.own(cmd.Process.Pid)
	}
	return nil
}

// Reaped tells the jail that the process Start started as pid has been
// waited for (exec.Cmd.Wait returned).
func (j *Jail) Reaped(pid int) {
	if j != nil && j.sr != nil {
		j.sr.disown(pid)
	}
}

// Stop ends every process in the jail (End: SIGTERM, and SIGKILL to what
// is left after grace) and returns once none is left, or it gave up
// (stopWait after SIGKILL). It returns how many processes it found and
// the signal that ended the last of them (0 when it found none).
func (j *Jail) Stop(grace time.Duration) (int, syscall.Signal) {
	switch {
	case j == nil:
		return 0, 0
	case j.cg != nil:
		return j.cg.stop(grace)
	case j.sr != nil:
		return j.sr.stop(j, grace)
	}
	return 0, 0
}

// Close kills whatever the jail still holds and removes it.
func (j *Jail) Close() error {
	if j == nil {
		return nil
	}
	var err error
	j.once.Do(func() {
		j.Stop(0)
		if j.cg != nil {
			err = j.cg.remove()
		}
		if j.sr != nil {
			j.sr.close()
		}
	})
	return err
}

// JailName is the name of the cgroup a tester with process id pid makes
// for its clients, under its own cgroup.
func JailName(pid int) string { return "diperf-clients-" + strconv.Itoa(pid) }

// stopWait bounds how long Stop waits for the jail to empty after SIGKILL
// (a process in uninterruptible sleep, on a hung NFS mount, may take
// long).
const stopWait = 5 * time.Second

// End asks processes to stop and kills them if they do not: it calls
// signal(SIGTERM), waits until ended is closed or grace has passed, and
// then calls signal(SIGKILL). It returns the signal that ended them:
// SIGTERM when they ended within grace, else SIGKILL. With no grace it
// sends SIGKILL alone.
func End(grace time.Duration, signal func(syscall.Signal), ended <-chan struct{}) syscall.Signal {
	if grace > 0 {
		signal(syscall.SIGTERM)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-ended:
			return syscall.SIGTERM
		case <-t.C:
		}
	}
	signal(syscall.SIGKILL)
	return syscall.SIGKILL
}
