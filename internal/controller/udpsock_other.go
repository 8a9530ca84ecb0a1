//go:build !linux

package controller

import (
	"fmt"
	"net"
)

// setReadBuffer asks for a receive buffer of want bytes on conn; the
// size granted is not known here (reported as want).
func setReadBuffer(conn *net.UDPConn, want int) (granted int, how string, err error) {
	if err := conn.SetReadBuffer(want); err != nil {
		return 0, "SO_RCVBUF", fmt.Errorf("SO_RCVBUF %d: %w", want, err)
	}
	return want, "SO_RCVBUF (size granted unknown)", nil
}
