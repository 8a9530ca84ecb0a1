//go:build unix

package spool

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f without waiting; the lock goes
// with the file's last descriptor, so also with a killed process.
// ErrInUse means another process holds it.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrInUse
	}
	return err
}
