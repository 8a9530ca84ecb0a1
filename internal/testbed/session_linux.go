package testbed

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// killSession kills every live process of session sid by process group
// (whatever a client of a tester left behind, and theirs), and reports how
// many groups it signalled. Processes are found in /proc by field 6 of
// /proc/PID/stat, the session id. It scans again until a scan finds no
// live process (bounded), so that a process forked while it scanned is
// caught too.
//
// A session id cannot be taken by a new session while a process of the
// old one lives, so every process found is the tester's; callers make sure
// the tester is not yet reaped (or was killed alive) when the session is
// empty of all but the tester.
func killSession(sid int) int {
	return killSessions(map[int]bool{sid: true})
}

// killSessions kills every live process of the given sessions by process
// group, with one scan of /proc per round for all of them (a host with a
// thousand testers is swept in a few scans, not a thousand), until a scan
// finds none (bounded). It returns the groups it signalled.
func killSessions(sids map[int]bool) int {
	signalled := 0
	for range 10 {
		groups := groupsOfSessions(sids)
		if len(groups) == 0 {
			break
		}
		for _, pg := range groups {
			if syscall.Kill(-pg, syscall.SIGKILL) == nil {
				signalled++
			}
		}
	}
	return signalled
}

// groupsOfSessions returns the process groups of the live processes of
// any of the sessions.
func groupsOfSessions(sids map[int]bool) []int {
	if len(sids) == 0 {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	seen := map[int]bool{}
	var groups []int
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		pg, s, live := parseStat(b)
		if live && sids[s] && !seen[pg] {
			seen[pg] = true
			groups = append(groups, pg)
		}
	}
	return groups
}

// parseStat reads the process group and session (fields 5 and 6) of a
// /proc/PID/stat line, and whether the process is alive (not a zombie).
// The command name (field 2) may hold spaces and parentheses: the fields
// are counted from its last ')'.
func parseStat(b []byte) (pgrp, session int, live bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:]) // state ppid pgrp session ...
	if len(f) < 4 {
		return 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(string(f[2]))
	session, err2 := strconv.Atoi(string(f[3]))
	state := string(f[0])
	return pgrp, session, err1 == nil && err2 == nil && state != "Z" && state != "X"
}

// waitExitedNoReap blocks until process pid has exited, leaving it a
// zombie for exec.Cmd.Wait to reap (waitid with WNOWAIT): while it is
// one, its pid (the session id) cannot be given to another process. ok is
// false if it could not wait; clean says the process exited with status 0.
func waitExitedNoReap(pid int) (clean, ok bool) {
	const (
		pPID      = 1 // idtype_t P_PID
		cldExited = 1 // si_code CLD_EXITED
	)
	var info [128]byte // siginfo_t: si_signo, si_errno, si_code, then (aligned) si_pid, si_uid, si_status
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return false, false
		}
		union := 3 * 4
		if unsafe.Sizeof(uintptr(0)) == 8 {
			union = 16
		}
		code := *(*int32)(unsafe.Pointer(&info[8]))
		status := *(*int32)(unsafe.Pointer(&info[union+8]))
		return code == cldExited && status == 0, true
	}
}
