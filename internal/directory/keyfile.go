package directory

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	"github.com/diperf/diperf/internal/credential"
)

// pemKeyType is the PEM block of a sensor's key file: PKCS #8, as
// `openssl genpkey -algorithm ed25519` writes it.
const pemKeyType = "PRIVATE KEY"

// LoadOrMakeKey reads a sensor's Ed25519 private key from path (PEM,
// PKCS #8), which must be private to its owner (no access for group or
// others). When path does not exist, a new key is made there (mode 0600,
// never replacing a file) and made is true.
func LoadOrMakeKey(path string) (key ed25519.PrivateKey, made bool, err error) {
	b, err := credential.ReadFile(path, true)
	if errors.Is(err, os.ErrNotExist) {
		return makeKey(path)
	}
	if err != nil {
		return nil, false, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != pemKeyType {
		return nil, false, fmt.Errorf("%s: want a PEM %q block (an Ed25519 key, PKCS #8)", path, pemKeyType)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, false, fmt.Errorf("%s: a %T key; want Ed25519", path, k)
	}
	return ek, false, nil
}

// makeKey makes a new key and writes it to path.
func makeKey(path string) (ed25519.PrivateKey, bool, error) {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, fmt.Errorf("making a sensor key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, false, fmt.Errorf("making a sensor key: %w", err)
	}
	if err := credential.WritePrivate(path, pem.EncodeToMemory(&pem.Block{Type: pemKeyType, Bytes: der})); err != nil {
		return nil, false, err
	}
	return k, true, nil
}
