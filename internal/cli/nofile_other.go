//go:build !linux

package cli

import "io"

// raiseNoFile leaves the limit as it is where diperf does not manage it.
func raiseNoFile(io.Writer, string, uint64) error { return nil }

// getNoFile reports no limit where diperf does not manage it.
func getNoFile() (rlimit, error) { return rlimit{1 << 20, 1 << 20}, nil }

// testersPerProcess sets no cap where diperf does not manage the limit.
func testersPerProcess() int { return 0 }
