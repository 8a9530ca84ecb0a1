//go:build !linux

package testbed

// killSession finds no session members on this system: it kills nothing.
func killSession(int) int { return 0 }

// killSessions finds no session members on this system: it kills nothing.
func killSessions(map[int]bool) int { return 0 }

// waitExitedNoReap cannot wait without reaping here.
func waitExitedNoReap(int) (clean, ok bool) { return false, false }

// groupsOfSessions finds no session members on this system.
func groupsOfSessions(map[int]bool) []int { return nil }
