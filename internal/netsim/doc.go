// Package netsim provides user-space network paths with programmable one-way
// delay, jitter and asymmetry, for tests and benchmarks.
//
// The kernel on our test machines has no netem, so WAN-like latency is added
// by proxies on loopback: a UDPProxy or TCPProxy listens on one address,
// forwards to an upstream address, and holds traffic for a configurable
// delay in each direction (see Path and Delay).
//
// Delays are applied by one scheduler goroutine per direction (UDP) or per
// connection direction (TCP), never by a timer per packet: it sleeps on a Go
// timer until about a millisecond before the next due time, then approaches
// it with short nanosleep(2) calls (on Linux) and a final yielding spin, so
// a datagram typically leaves within tens of microseconds of its due time
// on an idle machine. Each hop through a loopback socket adds roughly
// another 30-100 µs of wake-up latency outside the proxy's control.
package netsim
