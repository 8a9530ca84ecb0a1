//go:build linux && (amd64 || arm64)

package timeserver

import (
	"errors"
	"net"
	"syscall"
)

// haveKernelStamps tells whether kernelStamp can parse this platform's
// control messages (the 64-bit Linux layout).
const haveKernelStamps = true

// haveSegmentation tells whether this platform may coalesce datagrams on
// receive (UDP_GRO) and split them on send (UDP_SEGMENT), with control
// messages in the layout groSegmentSize and segmentCmsg know.
const haveSegmentation = true

const (
	solSocket      = syscall.SOL_SOCKET
	scmTimestampNS = syscall.SO_TIMESTAMPNS // SCM_TIMESTAMPNS == SO_TIMESTAMPNS
	// solUDP is the level of the UDP options and control messages.
	solUDP = syscall.IPPROTO_UDP
	// udpSegment (UDP_SEGMENT, Linux 4.18) sets the segment size of a
	// send that the kernel cuts into several datagrams (GSO).
	udpSegment = 103
	// udpGRO (UDP_GRO, Linux 5.0) lets the kernel hand over several
	// datagrams from one source coalesced, with their segment size.
	udpGRO = 104
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

// enableGRO asks the kernel to hand over datagrams from one source
// coalesced, each read then carrying a UDP_GRO control message with the
// segment size. It reports whether the kernel agreed; when it did not, c
// reads one datagram at a time as before.
func enableGRO(c *net.UDPConn) bool { return setUDPOption(c, udpGRO, 1) }

// setSendSegment makes every write on c longer than size bytes go out as
// datagrams of size bytes each (the last one may be shorter). It reports
// whether the kernel agreed.
func setSendSegment(c *net.UDPConn, size int) bool { return setUDPOption(c, udpSegment, size) }

// setUDPOption sets an integer socket option at level SOL_UDP on c and
// reports whether it took.
func setUDPOption(c *net.UDPConn, opt, v int) bool {
	rc, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = syscall.SetsockoptInt(int(fd), solUDP, opt, v) }); err != nil {
		return false
	}
	return opErr == nil
}

// segmentRefused tells whether a send failed because the kernel would not
// segment it: the route's device cannot checksum it (EIO), or the segment
// size or count is out of bounds (EINVAL, EMSGSIZE).
func segmentRefused(err error) bool {
	return errors.Is(err, syscall.EIO) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.EMSGSIZE)
}
