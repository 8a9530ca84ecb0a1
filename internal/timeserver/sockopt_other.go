//go:build !(linux && (amd64 || arm64))

package timeserver

import "net"

// haveKernelStamps is false here: timestamps fall back to time.Now.
const haveKernelStamps = false

// haveSegmentation is false here: one datagram per read and per message.
const haveSegmentation = false

const (
	solSocket      = -1
	scmTimestampNS = -1
	solUDP         = -1
	udpSegment     = -1
	udpGRO         = -1
)

// tuneUDP does nothing on this platform.
func tuneUDP(_ *net.UDPConn, _ int) error { return nil }

// enableGRO does nothing on this platform: reads stay one datagram each.
func enableGRO(_ *net.UDPConn) bool { return false }

// setSendSegment does nothing on this platform: sends stay one datagram
// each.
func setSendSegment(_ *net.UDPConn, _ int) bool { return false }

// segmentRefused is true here: no send is segmented on this platform.
func segmentRefused(error) bool { return true }
