package e2e

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// idleFlood holds connections that never send a byte: an outsider's
// cheapest attack on a port. Each of its n connections comes from its own
// loopback source address (127.3.x.y: every address of 127.0.0.0/8 is this
// machine), so that a per-source cap does not stop it alone; one the
// server closes is dialed again after redial, so that the flood stays
// whole for as long as it lasts.
type idleFlood struct {
	opened, closed atomic.Int64 // connections made; closed by the server
	say            []byte       // what each connection sends first, then nothing (nil: nothing)
	stop           chan struct{}
	wg             sync.WaitGroup
}

// floodRedial is how soon a flood connection the server closed is dialed
// again.
const floodRedial = 200 * time.Millisecond

// floodSource is the source address of flood connection i.
func floodSource(i int) net.IP { return net.IPv4(127, 3, byte(i/250), byte(i%250+1)) }

// startIdleFlood starts n idle connections to addr; the test's end stops them.
func startIdleFlood(t *testing.T, addr string, n int) *idleFlood {
	t.Helper()
	return startFlood(t, addr, n, nil)
}

// startFlood starts n connections to addr that each send say, then
// nothing; the test's end stops them.
func startFlood(t *testing.T, addr string, n int, say []byte) *idleFlood {
	t.Helper()
	f := &idleFlood{say: say, stop: make(chan struct{})}
	for i := range n {
		f.wg.Go(func() { f.hold(addr, floodSource(i)) })
	}
	t.Cleanup(f.end)
	return f
}

// hold keeps one connection from src open to addr until the flood ends.
func (f *idleFlood) hold(addr string, src net.IP) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: time.Second}
	for {
		c, err := d.Dial("tcp", addr)
		if err == nil && f.say != nil {
			_, _ = c.Write(f.say)
		}
		if err == nil {
			f.opened.Add(1)
			if f.wait(c) {
				return
			}
			f.closed.Add(1)
		}
		select {
		case <-f.stop:
			return
		case <-time.After(floodRedial):
		}
	}
}

// wait holds c until the server closes it (false) or the flood ends
// (true); c is closed either way.
func (f *idleFlood) wait(c net.Conn) (ended bool) {
	gone := make(chan struct{})
	go func() {
		_, _ = c.Read(make([]byte, 1)) // returns when the server hangs up, or we do
		close(gone)
	}()
	select {
	case <-gone:
	case <-f.stop:
		ended = true
	}
	c.Close()
	return ended
}

// end stops the flood and waits for its connections to close.
func (f *idleFlood) end() {
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	f.wg.Wait()
}

// waitOpen waits until the flood has made n connections (at most 20 s).
func (f *idleFlood) waitOpen(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for f.opened.Load() < int64(n) {
		if time.Now().After(deadline) {
			t.Fatalf("the flood made %d connections in 20 s, want %d", f.opened.Load(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// limitedCmd is diperf with args under an open-file limit of n, soft and
// hard (a shell's ulimit -n sets both), so that it cannot raise it.
func limitedCmd(n int, args ...string) []string {
	return append([]string{"-c", `ulimit -n "$0" && exec "$@"`, itoa(n), bin}, args...)
}
