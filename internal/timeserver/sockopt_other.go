//go:build !(linux && (amd64 || arm64))

package timeserver

import "net"

// haveKernelStamps is false here: timestamps fall back to time.Now.
const haveKernelStamps = false

const (
	solSocket      = -1
	scmTimestampNS = -1
)

// tuneUDP does nothing on this platform.
func tuneUDP(_ *net.UDPConn, _ int) error { return nil }
