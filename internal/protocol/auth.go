package protocol

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
)

// NonceSize is the length of an authentication nonce.
const NonceSize = 32

// Roles bound into a proof so that a proof cannot be reflected back.
const (
	RoleController = "diperf-controller-v1"
	RoleTester     = "diperf-tester-v1"
)

// NewNonce returns a fresh random nonce.
func NewNonce() []byte {
	b := make([]byte, NonceSize)
	if _, err := rand.Read(b); err != nil {
		panic("protocol: no randomness: " + err.Error())
	}
	return b
}

// Proof is HMAC-SHA256(secret, role || nonce): who holds the secret can make it.
func Proof(secret []byte, role string, nonce []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(role))
	m.Write(nonce)
	return m.Sum(nil)
}

// CheckProof reports, in constant time, whether proof is right.
func CheckProof(secret []byte, role string, nonce, proof []byte) bool {
	return len(nonce) == NonceSize && hmac.Equal(Proof(secret, role, nonce), proof)
}
