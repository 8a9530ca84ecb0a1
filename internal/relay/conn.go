package relay

import (
	"net"

	"github.com/hashicorp/yamux"
)

// streamConn is a relayed tester connection as the controller sees it: a
// yamux stream whose remote address is the tester's, not the relay's.
type streamConn struct {
	*yamux.Stream
	remote net.Addr
}

// RemoteAddr is the tester's address, as the relay accepted it.
func (c *streamConn) RemoteAddr() net.Addr { return c.remote }
