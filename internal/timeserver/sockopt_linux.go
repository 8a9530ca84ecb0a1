//go:build linux && (amd64 || arm64)

package timeserver

import (
	"net"
	"syscall"
)

// haveKernelStamps tells whether kernelStamp can parse this platform's
// control messages (the 64-bit Linux layout).
const haveKernelStamps = true

const (
	solSocket      = syscall.SOL_SOCKET
	scmTimestampNS = syscall.SO_TIMESTAMPNS // SCM_TIMESTAMPNS == SO_TIMESTAMPNS
)

// tuneUDP asks the kernel for receive timestamps on c and, when bufBytes
// > 0, for socket buffers of that size (forcing past the system maximum
// when privileged, else as much as the maximum allows).
func tuneUDP(c *net.UDPConn, bufBytes int) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = rc.Control(func(fd uintptr) {
		s := int(fd)
		opErr = syscall.SetsockoptInt(s, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
		if opErr != nil || bufBytes <= 0 {
			return
		}
		setBuffer(s, syscall.SO_RCVBUFFORCE, syscall.SO_RCVBUF, bufBytes)
		setBuffer(s, syscall.SO_SNDBUFFORCE, syscall.SO_SNDBUF, bufBytes)
	})
	if err != nil {
		return err
	}
	return opErr
}

// setBuffer sets a socket buffer size with the privileged option, falling
// back to the capped one; a failure only leaves the default size.
func setBuffer(fd, force, capped, size int) {
	if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, force, size) == nil {
		return
	}
	_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, capped, size)
}
