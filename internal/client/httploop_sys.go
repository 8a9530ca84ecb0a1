//go:build linux

package client

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The event loop's sockets are non-blocking, so their reads and writes
// never block: they go through RawSyscall, without the runtime's
// bookkeeping for a system call that might block.

// rawRead reads from a non-blocking fd.
func rawRead(fd int, b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// rawWrite writes to a non-blocking fd.
func rawWrite(fd int, b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}
