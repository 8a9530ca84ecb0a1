//go:build !linux

package contain

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// open holds nothing here: ModeAuto is ModeNone, the others fail.
func (j *Jail) open(mode string) error {
	if mode == ModeAuto {
		return nil
	}
	return fmt.Errorf("jail: mode %q needs Linux", mode)
}

// prepare does nothing here.
func (*Jail) prepare(*exec.Cmd) {}

// GroupGone cannot look for a group's processes here: the channel is
// closed at once.
func GroupGone(context.Context, int) <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// SweepTester finds no jail here.
func SweepTester(int) int { return 0 }

// cgroup and subreaper are Linux's jails.
type (
	cgroup struct {
		dir string
		fd  int
	}
	subreaper struct{}
)

func (*cgroup) stop(time.Duration) (int, syscall.Signal)           { return 0, 0 }
func (*cgroup) remove() error                                      { return nil }
func (*subreaper) own(int)                                         {}
func (*subreaper) disown(int)                                      {}
func (*subreaper) stop(*Jail, time.Duration) (int, syscall.Signal) { return 0, 0 }
func (*subreaper) close()                                          {}
