package netlab

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Proc is a process living in a host.
type Proc struct {
	// PID is its process id (the machine's: hosts share one PID space).
	PID int
	// Cmdline is its command line, arguments separated by spaces.
	Cmdline string
}

// String is "PID cmdline".
func (p Proc) String() string { return fmt.Sprintf("%d %s", p.PID, p.Cmdline) }

// Processes lists every process living in the host (in its network
// namespace) except the lab's own: its sshd daemon and the process holding
// its namespaces. Sessions of its sshd and what they start are listed.
func (h *Host) Processes() ([]Proc, error) {
	pids, err := pidsInNetns(h.NS())
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	skip := map[int]bool{h.anchor.Process.Pid: true}
	if h.sshd != nil {
		skip[h.sshd.Process.Pid] = true
	}
	h.mu.Unlock()
	var procs []Proc
	for _, pid := range pids {
		if skip[pid] {
			continue
		}
		comm, live := procState(pid)
		if !live {
			continue // gone, or a zombie
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		line := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		if line == "" { // in the middle of an exec: no arguments for a moment
			line = "[" + comm + "]"
		}
		procs = append(procs, Proc{PID: pid, Cmdline: line})
	}
	return procs, nil
}

// procState reads /proc/PID/stat: the process's command name, and whether
// it is alive (there, and not a zombie).
func procState(pid int) (comm string, live bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	open, end := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
	if open < 0 || end < open || end+2 >= len(b) {
		return "", false
	}
	return string(b[open+1 : end]), b[end+2] != 'Z' && b[end+2] != 'X'
}

// pidsInNetns lists the processes whose network namespace is the one bound
// at nsPath.
func pidsInNetns(nsPath string) ([]int, error) {
	var st unix.Stat_t
	if err := unix.Stat(nsPath, &st); err != nil {
		return nil, fmt.Errorf("netlab: namespace %s: %w", nsPath, err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("netlab: %w", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var pst unix.Stat_t
		if unix.Stat(fmt.Sprintf("/proc/%d/ns/net", pid), &pst) == nil && pst.Ino == st.Ino && pst.Dev == st.Dev {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// Files lists every file and directory under dir as the host sees it (dir
// itself excluded), as paths in the host, sorted. A dir that does not exist
// has no files.
func (h *Host) Files(dir string) ([]string, error) {
	base := h.Path(dir)
	var files []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == base && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		if p != base {
			rel, _ := filepath.Rel(base, p)
			files = append(files, filepath.Join(dir, rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("netlab: files under %s on %s: %w", dir, h.Name, err)
	}
	sort.Strings(files)
	return files, nil
}

// fillFile is the file FillDisk writes.
const fillFile = "/tmp/.netlab-fill"

// FillDisk fills the host's disk (behind /tmp and /root) so that any
// further write there fails with ENOSPC. FreeDisk undoes it.
func (h *Host) FillDisk() error {
	f, err := os.OpenFile(h.Path(fillFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("netlab: filling the disk of %s: %w", h.Name, err)
	}
	defer f.Close()
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &sfs); err == nil && sfs.Bavail > 1 {
		_ = unix.Fallocate(int(f.Fd()), 0, 0, int64(sfs.Bavail-1)*sfs.Bsize)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return fmt.Errorf("netlab: filling the disk of %s: %w", h.Name, err)
		}
	}
}

// FreeDisk removes what FillDisk wrote.
func (h *Host) FreeDisk() error {
	if err := os.Remove(h.Path(fillFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("netlab: freeing the disk of %s: %w", h.Name, err)
	}
	return nil
}
