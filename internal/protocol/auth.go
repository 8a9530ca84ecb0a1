package protocol

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
)

// NonceSize is the length of an authentication nonce.
const NonceSize = 32

// Roles bound into a proof so that a proof cannot be reflected back.
// Version 2 proofs bind the whole handshake (Binding), not a nonce alone.
const (
	RoleController = "diperf-controller-v2"
	RoleTester     = "diperf-tester-v2"
)

// Labels of the session key derivation, one key per direction.
const (
	labelToTester     = "diperf-session-v1 controller->tester"
	labelToController = "diperf-session-v1 tester->controller"
)

// NewNonce returns a fresh random nonce.
func NewNonce() []byte {
	b := make([]byte, NonceSize)
	if _, err := rand.Read(b); err != nil {
		panic("protocol: no randomness: " + err.Error())
	}
	return b
}

// Binding is everything the handshake said that a proof and the session
// keys are bound to: the protocol version, the slot and tester id of the
// Hello, and both nonces. A proof made for one slot, one tester or one
// connection's nonces is worthless for any other.
type Binding struct {
	Proto           int
	Slot            int
	ID              string
	TesterNonce     []byte
	ControllerNonce []byte
}

// BindingOf is the binding of a Hello and the controller's nonce.
func BindingOf(h Hello, controllerNonce []byte) Binding {
	return Binding{Proto: h.Proto, Slot: h.Slot, ID: h.ID, TesterNonce: h.Nonce, ControllerNonce: controllerNonce}
}

// encode is an unambiguous encoding of b: every variable field is
// length-prefixed.
func (b Binding) encode() []byte {
	var out []byte
	out = binary.BigEndian.AppendUint64(out, uint64(int64(b.Proto)))
	out = binary.BigEndian.AppendUint64(out, uint64(int64(b.Slot)))
	for _, f := range [][]byte{[]byte(b.ID), b.TesterNonce, b.ControllerNonce} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

// Proof is HMAC-SHA256(secret, role || binding): who holds the secret can
// make it, for this handshake only.
func Proof(secret []byte, role string, b Binding) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(role))
	m.Write(b.encode())
	return m.Sum(nil)
}

// CheckProof reports, in constant time, whether proof is right for this
// role and binding; both nonces must be of NonceSize.
func CheckProof(secret []byte, role string, b Binding, proof []byte) bool {
	return len(b.TesterNonce) == NonceSize && len(b.ControllerNonce) == NonceSize &&
		hmac.Equal(Proof(secret, role, b), proof)
}

// Keys are the MAC keys of one side of a session: what it sends with and
// what it checks the peer's frames with.
type Keys struct {
	Send, Recv []byte
	sendDir    byte // direction byte bound into each MAC
	recvDir    byte
}

// Directions of a frame, bound into its MAC.
const (
	dirToTester     = 'T'
	dirToController = 'C'
)

// SessionKeys derives the keys of one side (role RoleController or
// RoleTester) with HKDF-SHA256 from the secret, salted with both nonces,
// with the binding and the direction as info: one key per direction, new
// for every connection.
func SessionKeys(secret []byte, role string, b Binding) Keys {
	salt := append(append([]byte{}, b.TesterNonce...), b.ControllerNonce...)
	prk, err := hkdf.Extract(sha256.New, secret, salt)
	if err != nil {
		panic("protocol: hkdf: " + err.Error())
	}
	key := func(label string) []byte {
		k, err := hkdf.Expand(sha256.New, prk, label+string(b.encode()), sha256.Size)
		if err != nil {
			panic("protocol: hkdf: " + err.Error())
		}
		return k
	}
	toT, toC := key(labelToTester), key(labelToController)
	if role == RoleController {
		return Keys{Send: toT, Recv: toC, sendDir: dirToTester, recvDir: dirToController}
	}
	return Keys{Send: toC, Recv: toT, sendDir: dirToController, recvDir: dirToTester}
}
