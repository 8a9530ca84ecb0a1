// Package relay lets one controller hold more tester connections than one
// process may open files: relay worker processes share the controller's
// listening socket (inherited, so one accept queue for all), accept the
// testers' TCP connections, and carry each one as a stream of a yamux
// session over one Unix socket to the controller, which serves the stream
// as it would serve the connection. A relay never sees the run's secret:
// the handshake and every frame after it pass through unread (a relay on
// the path, which the protocol already withstands, design 007), and the
// controller hears each stream's tester address from the relay.
package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"

	"github.com/hashicorp/yamux"
)

// Window is the most a stream may have in flight each way before its
// writer waits (yamux's flow control): a tester that stops reading holds
// at most this much of the relay's memory, and stalls only itself.
const Window = 256 << 10

// maxAddr is the longest tester address a stream's header carries.
const maxAddr = 255

// muxConfig is the yamux configuration of both ends: no keep-alives (the
// Unix socket is local, and a dead peer is seen as EOF), a backlog for a
// burst of connections, and a bound on how long a write to the Unix socket
// may take before the session is deemed broken.
func muxConfig() *yamux.Config {
	c := yamux.DefaultConfig()
	c.AcceptBacklog = 4096
	c.EnableKeepAlive = false
	c.ConnectionWriteTimeout = 30 * time.Second
	c.MaxStreamWindowSize = Window
	c.StreamOpenTimeout = 30 * time.Second
	c.StreamCloseTimeout = 30 * time.Second
	c.LogOutput = io.Discard
	return c
}

// writeHeader starts a stream with the tester's address: its length (one
// byte), then the address as text.
func writeHeader(w io.Writer, addr string) error {
	if len(addr) > maxAddr {
		return fmt.Errorf("relay: tester address %q too long", addr)
	}
	_, err := w.Write(append([]byte{byte(len(addr))}, addr...))
	return err
}

// readHeader reads a stream's header and returns the tester's address.
func readHeader(r io.Reader) (net.Addr, error) {
	var n [1]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, fmt.Errorf("relay: stream header: %w", err)
	}
	b := make([]byte, n[0])
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("relay: stream header: %w", err)
	}
	ap, err := parseAddr(string(b))
	if err != nil {
		return nil, fmt.Errorf("relay: stream header: %w", err)
	}
	return ap, nil
}

// parseAddr reads a tester address as the relay wrote it: IP:port only,
// never a name to look up.
func parseAddr(s string) (net.Addr, error) {
	if s == "" {
		return nil, errors.New("no tester address")
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return nil, err
	}
	return net.TCPAddrFromAddrPort(ap), nil
}
