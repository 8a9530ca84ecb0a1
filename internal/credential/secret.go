package credential

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// MinSecretBytes is the shortest secret a run accepts, in random bytes:
// 256 bits, out of reach of a search offline even for someone who
// watched a handshake (docs/design/017-trust-model.md).
const MinSecretBytes = 32

// minDistinct is the fewest distinct byte values that 32 random bytes
// show: they have 30.1 on average, and fewer than 20 with a probability
// under 10^-9. A text secret shows as many distinct characters once it is
// long enough to hold 32 bytes' worth.
const minDistinct = 20

// SecretHint says how to make a good secret file.
const SecretHint = "make one with: (umask 077; head -c 32 /dev/urandom | base64 > FILE)"

// NewSecret is 32 random bytes.
func NewSecret() ([]byte, error) {
	b := make([]byte, MinSecretBytes)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("making a secret: %w", err)
	}
	return b, nil
}

// CheckSecret refuses a secret that cannot hold 32 random bytes: shorter
// once decoded (hex or base64 text counts for the bytes it encodes), or
// with so few distinct values that it is not random (a word, a repeated
// pattern).
func CheckSecret(s []byte) error {
	raw := decoded(s)
	if len(raw) < MinSecretBytes {
		return fmt.Errorf("the secret holds %d bytes once decoded; a secret needs at least %d random bytes", len(raw), MinSecretBytes)
	}
	if n := distinct(raw); n < minDistinct {
		return fmt.Errorf("the secret shows only %d distinct byte values: it is not %d random bytes (a word or a pattern can be guessed)", n, MinSecretBytes)
	}
	return nil
}

// decoded is s's bytes when s is hex or base64 text, else s.
func decoded(s []byte) []byte {
	if b, err := hex.DecodeString(string(s)); err == nil {
		return b
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(string(s)); err == nil {
			return b
		}
	}
	return s
}

// distinct counts the distinct byte values of b.
func distinct(b []byte) int {
	var seen [256]bool
	n := 0
	for _, c := range b {
		if !seen[c] {
			seen[c], n = true, n+1
		}
	}
	return n
}
