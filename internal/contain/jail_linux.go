package contain

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// open makes the jail in mode: a cgroup (ModeAuto, ModeCgroup), else the
// subreaper (ModeAuto, ModeSubreaper).
func (j *Jail) open(mode string) error {
	if mode == ModeAuto || mode == ModeCgroup {
		cg, err := newCgroup()
		if err == nil {
			j.mode, j.cg = ModeCgroup, cg
			if os.Getpid() == 1 { // a container's init: orphans come to it, to reap
				j.sr, err = newSubreaper(&j.starting)
			}
			return err
		}
		if mode == ModeCgroup {
			return fmt.Errorf("jail: %w", err)
		}
		j.why = err.Error()
	}
	sr, err := newSubreaper(&j.starting)
	if err != nil {
		return fmt.Errorf("jail: becoming the subreaper of the clients: %w", err)
	}
	j.mode, j.sr = ModeSubreaper, sr
	return nil
}

// prepare has cmd start in the cgroup, if the jail is one.
func (j *Jail) prepare(cmd *exec.Cmd) {
	if j.cg == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, j.cg.fd
}
