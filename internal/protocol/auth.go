package protocol

import (
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
)

// NonceSize is the length of an authentication nonce.
const NonceSize = 32

// Roles bound into a proof so that a proof cannot be reflected back.
// Version 3: the controller signs with its own key (SignController), the
// tester proves the shared secret (Proof); both bind the whole handshake
// with both key-exchange shares and the run's name.
const (
	RoleController = "diperf-controller-v3"
	RoleTester     = "diperf-tester-v3"
)

// Labels of the session key derivation, one key per direction.
const (
	labelToTester     = "diperf-session-v2 controller->tester"
	labelToController = "diperf-session-v2 tester->controller"
)

// KexSize is the length of a key-exchange share (an X25519 public key).
const KexSize = 32

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
	TesterKex       []byte // the tester's X25519 share
	ControllerKex   []byte // the controller's X25519 share
	Run             string // the run's name, which the tester's token must admit
}

// BindingOf is the binding of a Hello and the controller's Challenge.
func BindingOf(h Hello, ch Challenge) Binding {
	return Binding{Proto: h.Proto, Slot: h.Slot, ID: h.ID, TesterNonce: h.Nonce, ControllerNonce: ch.Nonce,
		TesterKex: h.Kex, ControllerKex: ch.Kex, Run: ch.Run}
}

// encode is an unambiguous encoding of b: every variable field is
// length-prefixed.
func (b Binding) encode() []byte {
	var out []byte
	out = binary.BigEndian.AppendUint64(out, uint64(int64(b.Proto)))
	out = binary.BigEndian.AppendUint64(out, uint64(int64(b.Slot)))
	for _, f := range [][]byte{[]byte(b.ID), b.TesterNonce, b.ControllerNonce, b.TesterKex, b.ControllerKex, []byte(b.Run)} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

// Proof is HMAC-SHA256(secret, role || binding): who holds the secret can
// make it, for this handshake only. Only the tester proves so: the
// controller signs (SignController).
func Proof(secret []byte, role string, b Binding) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(role))
	m.Write(b.encode())
	return m.Sum(nil)
}

// CheckProof reports, in constant time, whether proof is right for this
// role and binding; both nonces must be of NonceSize.
func CheckProof(secret []byte, role string, b Binding, proof []byte) bool {
	return b.wellFormed() && hmac.Equal(Proof(secret, role, b), proof)
}

// wellFormed reports whether the nonces and shares have their sizes.
func (b Binding) wellFormed() bool {
	return len(b.TesterNonce) == NonceSize && len(b.ControllerNonce) == NonceSize &&
		len(b.TesterKex) == KexSize && len(b.ControllerKex) == KexSize
}

// SignController is the controller's proof that it is the run's
// controller: an Ed25519 signature of RoleController || binding with its
// private key, whose public half the testers' tokens carry. Testers never
// hold that key, so no tester can make it.
func SignController(key ed25519.PrivateKey, b Binding) []byte {
	return ed25519.Sign(key, append([]byte(RoleController), b.encode()...))
}

// CheckController reports whether sig is the controller's signature of
// this binding under pub.
func CheckController(pub ed25519.PublicKey, b Binding, sig []byte) bool {
	return b.wellFormed() && len(pub) == ed25519.PublicKeySize &&
		ed25519.Verify(pub, append([]byte(RoleController), b.encode()...), sig)
}

// NewKex is a new X25519 key for one handshake's key exchange; its public
// half is the share sent (Hello.Kex, Challenge.Kex).
func NewKex() *ecdh.PrivateKey {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		panic("protocol: no randomness: " + err.Error())
	}
	return k
}

// Shared is the X25519 secret of our key and the peer's share; an error
// for a share that is no X25519 public key, or a low-order one.
func Shared(k *ecdh.PrivateKey, peer []byte) ([]byte, error) {
	pub, err := ecdh.X25519().NewPublicKey(peer)
	if err != nil {
		return nil, err
	}
	return k.ECDH(pub)
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
// RoleTester) with HKDF-SHA256 from the secret and the key exchange's
// shared secret, salted with both nonces, with the binding and the
// direction as info: one key per direction, new for every connection.
// Holding the token is not enough to compute them: a tester host that
// relays another tester's handshake lacks the X25519 secret.
func SessionKeys(secret, shared []byte, role string, b Binding) Keys {
	salt := append(append([]byte{}, b.TesterNonce...), b.ControllerNonce...)
	ikm := append(append([]byte{}, secret...), shared...)
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
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
