package tester

import (
	"errors"
	"fmt"

	"github.com/diperf/diperf/internal/protocol"
)

// Handshake runs a tester's side of the handshake on conn (Hello,
// Challenge, Auth; docs/design/007-authenticated-sessions.md): it sends
// hello, checks the controller's proof of secret before it proves its own,
// secures conn with the session keys and returns the test description the
// controller sends next. Deadlines are the caller's. The tester and
// `diperf bench controller`'s synthetic testers both use it.
func Handshake(conn *protocol.Conn, secret []byte, hello protocol.Hello) (protocol.TestDesc, error) {
	var desc protocol.TestDesc
	if err := conn.WriteJSON(protocol.TypeHello, hello); err != nil {
		return desc, err
	}
	var ch protocol.Challenge
	if err := conn.Expect(protocol.TypeChallenge, &ch); err != nil {
		return desc, fmt.Errorf("tester: handshake: %w", err)
	}
	b := protocol.BindingOf(hello, ch.Nonce)
	if !protocol.CheckProof(secret, protocol.RoleController, b, ch.Proof) {
		return desc, errors.New("tester: the controller could not prove it holds the secret; refusing to run commands for it")
	}
	auth := protocol.Auth{Proof: protocol.Proof(secret, protocol.RoleTester, b)}
	if err := conn.WriteJSON(protocol.TypeAuth, auth); err != nil {
		return desc, err
	}
	conn.Secure(protocol.SessionKeys(secret, protocol.RoleTester, b))
	if err := conn.Expect(protocol.TypeTestDesc, &desc); err != nil {
		return desc, fmt.Errorf("tester: waiting for the test description: %w", err)
	}
	return desc, nil
}
