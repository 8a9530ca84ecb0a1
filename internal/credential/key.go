package credential

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"
)

// keyHeader is the first line of a controller key file.
const keyHeader = "diperf-controller-key 1"

// EncodeKey is the text of a controller key file: the private key's seed,
// and the fingerprint of its public half to match it with its tokens.
func EncodeKey(k ed25519.PrivateKey) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n", keyHeader)
	fmt.Fprintf(&b, "# the controller's private key: keep it on the controller's host; never give it to a tester\n")
	fmt.Fprintf(&b, "fingerprint: %s\n", Fingerprint(k.Public().(ed25519.PublicKey)))
	fmt.Fprintf(&b, "private: %s\n", base64.StdEncoding.EncodeToString(k.Seed()))
	return b.Bytes()
}

// ParseKey reads a controller key file's text (EncodeKey).
func ParseKey(b []byte) (ed25519.PrivateKey, error) {
	if len(b) > MaxFile {
		return nil, fmt.Errorf("a key file holds at most %d bytes; this one holds more", MaxFile)
	}
	fields, err := parseFields(b, keyHeader, []string{"fingerprint", "private"})
	if err != nil {
		return nil, fmt.Errorf("not a diperf controller key: %w", err)
	}
	seed, err := base64.StdEncoding.DecodeString(fields["private"])
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%s: private: want a %d-byte seed in base64", keyHeader, ed25519.SeedSize)
	}
	k := ed25519.NewKeyFromSeed(seed)
	if fp := Fingerprint(k.Public().(ed25519.PublicKey)); fp != fields["fingerprint"] {
		return nil, fmt.Errorf("%s: the fingerprint line says %s, the key's is %s: the file was altered", keyHeader, fields["fingerprint"], fp)
	}
	return k, nil
}

// New makes a credential: a token with a new random secret and the
// public half of a new controller key, good for runs until expires, and
// that key.
func New(runs []string, expires time.Time) (Token, ed25519.PrivateKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return Token{}, nil, fmt.Errorf("making a controller key: %w", err)
	}
	secret, err := NewSecret()
	if err != nil {
		return Token{}, nil, err
	}
	return Token{Secret: secret, Controller: pub, Runs: runs, Expires: expires.UTC().Truncate(time.Second)}, priv, nil
}

// Matches reports whether key is the private half of the token's
// controller key.
func (t Token) Matches(key ed25519.PrivateKey) bool {
	return key != nil && bytes.Equal(key.Public().(ed25519.PublicKey), t.Controller)
}
