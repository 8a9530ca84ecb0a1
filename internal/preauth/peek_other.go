//go:build !unix

package preauth

import "net"

// peekWait does nothing where sockets are not peeked at: WaitFirstByte
// reads the byte and puts it back.
func peekWait(net.Conn) (bool, error) { return false, nil }

// pending reports nothing waiting where sockets are not peeked at.
func pending(net.Conn) bool { return false }
