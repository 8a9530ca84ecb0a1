package protocol

import (
	"crypto/ed25519"
	"errors"
	"fmt"
)

// Controller is what a controller proves itself and checks testers with:
// the testers' shared secret, its own private key (whose public half the
// testers' tokens carry) and the run's name.
type Controller struct {
	Secret []byte
	Key    ed25519.PrivateKey
	Run    string
}

// ErrAuth is a peer that could not prove it holds the testers' secret.
var ErrAuth = errors.New("authentication failed")

// Admit runs the controller's side of the handshake on conn (Hello,
// Challenge, Auth, Welcome; docs/design/017-trust-model.md): it reads the
// tester's Hello, answers with a nonce, a key-exchange share and the
// run's name — nothing a peer could test a guess of the secret against —
// checks the tester's proof, and only then signs the handshake with its
// key and secures conn with the session keys. Deadlines are the caller's.
func Admit(conn *Conn, c Controller) (Hello, error) {
	var h Hello
	if err := conn.Expect(TypeHello, &h); err != nil {
		return h, err
	}
	if h.Proto != Version {
		return h, fmt.Errorf("protocol version %d not supported (this controller speaks %d)", h.Proto, Version)
	}
	kex := NewKex()
	ch := Challenge{Nonce: NewNonce(), Kex: kex.PublicKey().Bytes(), Run: c.Run}
	if err := conn.WriteJSON(TypeChallenge, ch); err != nil {
		return h, err
	}
	var a Auth
	if err := conn.Expect(TypeAuth, &a); err != nil {
		return h, err
	}
	b := BindingOf(h, ch)
	if !CheckProof(c.Secret, RoleTester, b, a.Proof) {
		return h, ErrAuth
	}
	shared, err := Shared(kex, h.Kex)
	if err != nil {
		return h, fmt.Errorf("the tester's key share: %w", err)
	}
	if err := conn.WriteJSON(TypeWelcome, Welcome{Sig: SignController(c.Key, b)}); err != nil {
		return h, err
	}
	conn.Secure(SessionKeys(c.Secret, shared, RoleController, b))
	return h, nil
}
