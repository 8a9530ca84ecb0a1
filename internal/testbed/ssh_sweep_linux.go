package testbed

import (
	"os"
	"syscall"
)

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
			continue
		}
		pg, s, live := parseStat(b)
		if live && sids[s] && !seen[pg] {
			seen[pg] = true
			groups = append(groups, pg)
		}
	}
	return groups
}
