package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// treeUsage is what a process and all its descendants use together: the
// controller counted as its whole process tree (`diperf run` and the
// relay workers it starts), or the generator's children.
type treeUsage struct {
	RSS   uint64        // resident bytes, summed (pages shared between processes count once per process)
	CPU   time.Duration // user+system CPU of every live process, and of the children each has reaped
	Procs int           // live processes in the tree
}

// procStat is what /proc/PID/stat says of one process.
type procStat struct {
	pid, ppid int
	cpu       time.Duration // utime+stime+cutime+cstime
	rss       uint64        // bytes
}

// readProcStat parses /proc/PID/stat: the fields after the parenthesized
// command name, numbered as in proc(5) (ppid 4, utime 14, stime 15,
// cutime 16, cstime 17, rss 24 in pages).
func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("bench: unreadable /proc stat")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 22 {
		return procStat{}, errors.New("bench: short /proc stat")
	}
	n := func(field int) uint64 { v, _ := strconv.ParseUint(f[field-3], 10, 64); return v }
	ticks := n(14) + n(15) + n(16) + n(17)
	return procStat{pid: pid, ppid: int(n(4)), cpu: time.Duration(ticks) * time.Second / clockTicks,
		rss: n(24) * uint64(os.Getpagesize())}, nil
}

// allProcs reads the stat of every process in /proc (those that exit
// meanwhile are left out).
func allProcs() ([]procStat, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var ps []procStat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := readProcStat(pid); err == nil {
			ps = append(ps, s)
		}
	}
	return ps, nil
}

// procTree sums the usage of root and every descendant of it in ps.
func procTree(root int, ps []procStat) treeUsage {
	kids := map[int][]int{}
	byPID := map[int]procStat{}
	for _, p := range ps {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
		byPID[p.pid] = p
	}
	var u treeUsage
	todo := []int{root}
	for len(todo) > 0 {
		pid := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		p, ok := byPID[pid]
		if !ok {
			continue
		}
		u.RSS += p.rss
		u.CPU += p.cpu
		u.Procs++
		todo = append(todo, kids[pid]...)
	}
	return u
}

// treeOf reads root's process tree now; zero when root is gone.
func treeOf(root int) treeUsage {
	ps, err := allProcs()
	if err != nil {
		return treeUsage{}
	}
	return procTree(root, ps)
}

// procCPU is the CPU time of pid's process tree so far; an error once
// pid is gone.
func procCPU(pid int) (time.Duration, error) {
	u := treeOf(pid)
	if u.Procs == 0 {
		return 0, fmt.Errorf("bench: process %d is gone", pid)
	}
	return u.CPU, nil
}
