// Package client runs one call to the service under test, behind one
// interface: an executable started once per call (DiPerF's RPC-like
// client), a persistent process told to make each call, and the built-in
// HTTP, TCP and UDP clients (plain HTTP/1.1 keep-alive also as an epoll
// event loop, Looper). New builds the client a test description names;
// docs/clients.md documents each kind.
package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/contain"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// Client makes one call to the service. It never returns an error: a failed
// call is data, classified in the Reply. One Client serves every client
// loop of a tester at once, so Call is safe for concurrent use. A client
// that holds resources between calls (processes, connections) also
// implements io.Closer; the tester closes it after its last call.
type Client interface {
	Call(ctx context.Context) Reply
}

// Reply is what one call came to, as the client saw it: its status class,
// the bytes it moved and, when it did not succeed, why. The caller times
// the call.
type Reply struct {
	Status sample.Status
	Bytes  int64
	Err    string
	Phases sample.Phases  // http: the call's phases; tcp: its connect (zero for other kinds)
	Extras []sample.Extra // what the client reported for the call (exec, persistent)
	// Stopping is how long the client took to stop after its call was cut
	// off (its timeout, or the tester stopping): the call ended when it
	// was cut off, this long before Call returned.
	Stopping time.Duration
}

// Spec says which client New builds.
type Spec struct {
	Desc    protocol.ClientDesc // the kind and its settings, as the test description carries them
	Env     []string            // the environment every client gets, KEY=VALUE (exec adds Desc.Env)
	Timeout time.Duration       // a call past this is cut off and classed Timeout
	Jail    *contain.Jail       // where exec and persistent clients run (nil: process groups only)
}

// New builds the client s describes. An unknown kind, or settings that
// kind cannot run with, is an error.
func New(s Spec) (Client, error) {
	if err := s.Desc.Validate(); err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if s.Timeout <= 0 {
		return nil, errors.New("client: the call timeout must be positive")
	}
	switch s.Desc.Kind {
	case protocol.ClientExec:
		env := append(append([]string(nil), s.Env...), s.Desc.Env...)
		e := NewExec(s.Desc.Argv, env, s.Timeout)
		e.KillGrace, e.Jail = time.Duration(s.Desc.KillGraceNs), s.Jail
		return e, nil
	case protocol.ClientPersistent:
		p := NewPersistent(s.Desc.Argv, append(append([]string(nil), s.Env...), s.Desc.Env...), s.Timeout)
		p.Grace, p.Jail = time.Duration(s.Desc.KillGraceNs), s.Jail
		return p, nil
	case protocol.ClientHTTP:
		return NewHTTPClient(*s.Desc.HTTP, s.Timeout)
	case protocol.ClientNull:
		return Null{}, nil
	case protocol.ClientTCP, protocol.ClientUDP:
		return newSocket(s.Desc.Kind, *s.Desc.Socket, s.Timeout)
	}
	return nil, fmt.Errorf("client: kind %q has no implementation in this build", s.Desc.Kind)
}
