//go:build !linux

package testbed

// killSession finds no session members on this system: it kills nothing.
func killSession(int) int { return 0 }

// waitExitedNoReap cannot wait without reaping here.
func waitExitedNoReap(int) (clean, ok bool) { return false, false }
