package testbed

import (
	"syscall"
	"unsafe"

	"github.com/diperf/diperf/internal/contain"
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
	seen := map[int]bool{}
	var groups []int
	contain.EachProcess(func(_ int, st contain.Stat) {
		if st.Live && sids[st.Session] && !seen[st.PGRP] {
			seen[st.PGRP] = true
			groups = append(groups, st.PGRP)
		}
	})
	return groups
}

// parseStat reads the process group and session of a /proc/PID/stat
// line, and whether the process is alive (not a zombie).
func parseStat(b []byte) (pgrp, session int, live bool) {
	st, ok := contain.ParseStat(b)
	return st.PGRP, st.Session, ok && st.Live
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
