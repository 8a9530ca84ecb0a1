// Package transport abstracts how controller and testers reach each other:
// TCP for real runs (TCP) and an in-memory network for tests (Memory), behind
// one interface, so that another way (e.g. SSH sessions) slots in beside
// them.
package transport

import (
	"context"
	"net"
	"time"
)

// Transport opens listeners and connections.
type Transport interface {
	Listen(addr string) (net.Listener, error)
	Dial(ctx context.Context, addr string) (net.Conn, error)
}

// TCP is plain TCP with keep-alives and Nagle off (small frames go at once).
type TCP struct{}

var _ Transport = TCP{}

// Listen listens on a TCP address.
func (TCP) Listen(addr string) (net.Listener, error) {
	var lc net.ListenConfig
	return lc.Listen(context.Background(), "tcp", addr)
}

// Dial connects to a TCP address.
func (TCP) Dial(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 15 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	return c, nil
}
