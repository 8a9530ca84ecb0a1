//go:build !unix

package spool

import "os"

// lockFile does nothing where flock is not available: a recovery cannot
// tell a live run from a dead one there.
func lockFile(*os.File) error { return nil }
