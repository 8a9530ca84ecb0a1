//go:build !unix

package protocol

import (
	"net"
	"syscall"
)

// rawConn returns nil: outside Unix a Conn reads through net.Conn only.
func rawConn(net.Conn) syscall.RawConn { return nil }

// readRaw is never called without a raw connection.
func (f *frameReader) readRaw() error { panic("protocol: readRaw without a raw connection") }
