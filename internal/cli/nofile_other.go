//go:build !linux

package cli

import "io"

// raiseNoFile leaves the limit as it is where diperf does not manage it.
func raiseNoFile(io.Writer, string, uint64) error { return nil }

// testersPerProcess sets no cap where diperf does not manage the limit.
func testersPerProcess() int { return 0 }
