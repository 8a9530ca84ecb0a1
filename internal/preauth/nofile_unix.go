//go:build unix

package preauth

import "syscall"

// noFile is this process's open-file limit (soft).
func noFile() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 1 << 20 // unknown: as if there were none
	}
	return r.Cur
}
