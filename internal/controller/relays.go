package controller

import (
	"fmt"
	"net"
	"os"
	"os/exec"

	"github.com/diperf/diperf/internal/relay"
)

// startRelays starts the relay workers on ln: from now on they accept the
// testers' connections and the controller serves each one they relay.
func (c *controller) startRelays(ln net.Listener) (*relay.Pool, error) {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return nil, fmt.Errorf("controller: relays need a TCP listener, not %T", ln)
	}
	cmd := c.o.RelayCommand
	if cmd == nil {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("controller: finding this program for its relays: %w", err)
		}
		cmd = func() *exec.Cmd { return exec.Command(exe, "relay") }
	}
	p, err := relay.Start(tl, relay.Options{Workers: c.path.Relays, MaxConns: max(c.path.PerRelay, 1), Command: cmd,
		Handle: c.accepted, Log: func(event, detail string) { c.events.Add(event, -1, "", detail) }})
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	return p, nil
}
