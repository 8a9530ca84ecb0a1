package bench

import (
	"net"
	"net/netip"
)

// PerSource is how many tester connections the controller benchmark opens
// from one source address at most: well under the 28,232 ephemeral ports
// of Linux's default ip_local_port_range (32768-60999), since every
// connection to the controller's one address and port needs its own
// source port.
const PerSource = 10_000

// SourceCount is how many source addresses n connections are spread over.
func SourceCount(n int) int { return max(1, (n+PerSource-1)/PerSource) }

// SourceAddr is the source address of connection i of n: connections go
// round the SourceCount(n) addresses 127.1.0.1, 127.1.0.2, ... (every
// address of 127.0.0.0/8 is this machine's loopback on Linux), 250 per
// third octet, so that no address ends in .0 or .255.
func SourceAddr(i, n int) netip.Addr {
	j := i % SourceCount(n)
	return netip.AddrFrom4([4]byte{127, 1, byte(j / 250), byte(j%250 + 1)})
}

// sourceDialer returns a dialer bound to connection i's source address
// (port 0: the kernel picks a free one).
func sourceDialer(i, n int) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: SourceAddr(i, n).AsSlice()}}
}
