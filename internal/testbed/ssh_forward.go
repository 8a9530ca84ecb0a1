package testbed

import (
	"io"
	"net"
	"sync/atomic"
	"time"
)

// forwardTime serves the host's remote listener (sshd's remote port
// forwarding, on the host's loopback): each connection a tester opens
// there to sync its clock is piped to the controller's TCP time server on
// this machine, whose address Start learns (target).
func forwardTime(ln net.Listener, target *atomic.Value) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed at cleanup, or the connection is gone
		}
		go pipeTo(c, target)
	}
}

// pipeTo copies c both ways to the target address until either side ends.
func pipeTo(c net.Conn, target *atomic.Value) {
	defer c.Close()
	addr, _ := target.Load().(string)
	if addr == "" {
		return
	}
	up, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		if tc, ok := up.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		close(done)
	}()
	_, _ = io.Copy(c, up)
	c.Close()
	<-done
}
