package controller

import (
	"fmt"
	"net"
	"syscall"
)

// setReadBuffer asks for a receive buffer of want bytes on conn: with
// SO_RCVBUFFORCE, which passes net.core.rmem_max when the process may
// (CAP_NET_ADMIN, as root), else SO_RCVBUF, capped by rmem_max. It
// returns what the kernel granted (it doubles the request for its own
// bookkeeping) and which option did it.
func setReadBuffer(conn *net.UDPConn, want int) (granted int, how string, err error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return 0, "", fmt.Errorf("udp socket: %w", err)
	}
	var serr error
	cerr := rc.Control(func(fd uintptr) {
		how = "SO_RCVBUFFORCE"
		if syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, want) != nil {
			how = "SO_RCVBUF, capped by net.core.rmem_max"
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, want)
		}
		granted, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF)
	})
	switch {
	case cerr != nil:
		return 0, how, fmt.Errorf("udp socket: %w", cerr)
	case serr != nil:
		return granted, how, fmt.Errorf("SO_RCVBUF %d: %w", want, serr)
	case err != nil:
		return 0, how, fmt.Errorf("reading SO_RCVBUF: %w", err)
	}
	return granted, how, nil
}
