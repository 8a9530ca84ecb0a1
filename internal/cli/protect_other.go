//go:build !linux

package cli

// protectProcess does nothing on this system.
func protectProcess() {}
