package contain

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reapEvery is the least time between two looks for orphans to reap.
const reapEvery = 100 * time.Millisecond

// subreaper is the jail of a host without a usable cgroup: this process
// is the subreaper of its descendants (PR_SET_CHILD_SUBREAPER), so an
// orphan among them (whose parent exited: a daemon that forked twice) is
// reparented to it, and every one of them is found in /proc by its
// parents. Orphans that exit are its children to reap: reapLoop does, on
// SIGCHLD, but never a process Start started (exec.Cmd.Wait reaps it).
type subreaper struct {
	self int
	mu   sync.Mutex
	ours map[int]bool // the processes Start started, not yet reaped
	sig  chan os.Signal
	quit chan struct{}
	done chan struct{}
}

// newSubreaper makes this process the subreaper of its descendants and
// starts reaping its orphans; starting is the jail's, held for writing
// while it reaps.
func newSubreaper(starting *sync.RWMutex) (*subreaper, error) {
	if err := setSubreaper(1); err != nil {
		return nil, err
	}
	s := &subreaper{self: os.Getpid(), ours: map[int]bool{}, sig: make(chan os.Signal, 1),
		quit: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(s.sig, syscall.SIGCHLD)
	go s.reapLoop(starting)
	return s, nil
}

func setSubreaper(on uintptr) error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, on, 0, 0, 0)
}

func (s *subreaper) own(pid int) {
	s.mu.Lock()
	s.ours[pid] = true
	s.mu.Unlock()
}

func (s *subreaper) disown(pid int) {
	s.mu.Lock()
	delete(s.ours, pid)
	s.mu.Unlock()
}

// reapLoop reaps orphans on each SIGCHLD, at most every reapEvery, until
// close.
func (s *subreaper) reapLoop(starting *sync.RWMutex) {
	defer close(s.done)
	for {
		select {
		case <-s.quit:
			return
		case <-s.sig:
		}
		s.reap(starting)
		select {
		case <-s.quit:
			return
		case <-time.After(reapEvery):
		}
	}
}

// reap reaps the zombies among this process's children that Start did
// not start, and returns the live descendants it saw. It looks in /proc
// first, then takes starting for writing (no Start under way: each child
// forked before is recorded) only to reap: a Start is never held for the
// time of a look.
func (s *subreaper) reap(starting *sync.RWMutex) []int {
	live, zombies := descendants(s.self)
	if len(zombies) == 0 {
		return live
	}
	starting.Lock()
	defer starting.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pid := range zombies {
		if !s.ours[pid] {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
	return live
}

// stop ends every descendant of this process: SIGTERM, then after grace
// SIGKILL, round after round until none is left (bounded by stopWait).
func (s *subreaper) stop(j *Jail, grace time.Duration) (int, syscall.Signal) {
	n := len(s.reap(&j.starting))
	if n == 0 {
		return 0, 0
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signalAll := func(sig syscall.Signal) {
		for _, pid := range s.reap(&j.starting) {
			_ = syscall.Kill(pid, sig)
		}
	}
	sig := End(grace, signalAll, s.emptied(ctx, j))
	if sig == syscall.SIGKILL {
		for deadline := time.Now().Add(stopWait); time.Now().Before(deadline); time.Sleep(cgroupPoll) {
			if len(s.reap(&j.starting)) == 0 {
				break
			}
			signalAll(syscall.SIGKILL) // what forked meanwhile
		}
	}
	return n, sig
}

// emptied returns a channel closed once this process has no live
// descendant, reaping as it looks, until ctx is done.
func (s *subreaper) emptied(ctx context.Context, j *Jail) <-chan struct{} {
	return once(ctx, func() bool { return len(s.reap(&j.starting)) == 0 })
}

// close stops reaping and ends the subreaper role.
func (s *subreaper) close() {
	close(s.quit)
	<-s.done
	signal.Stop(s.sig)
	_ = setSubreaper(0)
}
