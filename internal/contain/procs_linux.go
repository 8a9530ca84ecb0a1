package contain

import (
	"bytes"
	"os"
	"slices"
	"strconv"
)

// Stat is what diperf reads of a process in /proc/PID/stat.
type Stat struct {
	PPID    int  // its parent
	PGRP    int  // its process group
	Session int  // its session
	Live    bool // not a zombie (nor dead)
}

// ParseStat reads a /proc/PID/stat line. The command name (field 2) may
// hold spaces and parentheses: the fields are counted from its last ')'.
func ParseStat(b []byte) (Stat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := bytes.Fields(b[i+1:]) // state ppid pgrp session ...
	if len(f) < 4 {
		return Stat{}, false
	}
	var n [3]int
	for k := range n {
		v, err := strconv.Atoi(string(f[k+1]))
		if err != nil {
			return Stat{}, false
		}
		n[k] = v
	}
	state := string(f[0])
	return Stat{PPID: n[0], PGRP: n[1], Session: n[2], Live: state != "Z" && state != "X"}, true
}

// Alive reports whether process pid is alive: there, and not a zombie.
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st, ok := ParseStat(b)
	return ok && st.Live
}

// EachProcess calls f with every process /proc lists (zombies included),
// but for those gone while it reads.
func EachProcess(f func(pid int, st Stat)) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		if st, ok := ParseStat(b); ok {
			f(pid, st)
		}
	}
}

// descendants returns the live descendants of process root (not root
// itself), and those of its children that are zombies.
func descendants(root int) (live, zombies []int) {
	kids := map[int][]int{}
	alive := map[int]bool{}
	EachProcess(func(pid int, st Stat) {
		kids[st.PPID] = append(kids[st.PPID], pid)
		alive[pid] = st.Live
	})
	for _, p := range kids[root] {
		if !alive[p] {
			zombies = append(zombies, p)
		}
	}
	for todo := slices.Clone(kids[root]); len(todo) > 0; {
		p := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], kids[p]...)
		if alive[p] {
			live = append(live, p)
		}
	}
	return live, zombies
}
