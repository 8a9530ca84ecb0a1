package credential

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotPrivate is a file that holds a secret but that its group or
// others may read or write.
var ErrNotPrivate = errors.New("may be read or written by its group or others")

// ReadFile reads a credential file of at most MaxFile bytes. With private
// it must be a regular file that neither its group nor others may read or
// write (ErrNotPrivate).
func ReadFile(path string, private bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if perm := st.Mode().Perm(); private && perm&0o077 != 0 {
		return nil, fmt.Errorf("%s %w (mode %04o)", path, ErrNotPrivate, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFile {
		return nil, fmt.Errorf("%s holds more than %d bytes: not a credential file", path, MaxFile)
	}
	return b, nil
}

// ReadToken reads and parses a token file (private or not: a tester may
// read a copy that others can read; the controller asks for private).
func ReadToken(path string, private bool) (Token, error) {
	b, err := ReadFile(path, private)
	if err != nil {
		return Token{}, err
	}
	t, err := ParseToken(b)
	if err != nil {
		return Token{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ReadKey reads and parses a controller key file, which must be private.
func ReadKey(path string) (ed25519.PrivateKey, error) {
	b, err := ReadFile(path, true)
	if err != nil {
		return nil, err
	}
	k, err := ParseKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// WritePrivate writes b to a new file at path, mode 0600; it never
// replaces a file that exists.
func WritePrivate(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// WritePair writes a new token file and its controller's key file, both
// new and private; when the key cannot be written the token is removed,
// so that no token is left whose key is lost.
func WritePair(tokenPath, keyPath string, t Token, key ed25519.PrivateKey) error {
	if err := WritePrivate(keyPath, EncodeKey(key)); err != nil {
		return fmt.Errorf("writing the controller key: %w", err)
	}
	if err := WritePrivate(tokenPath, t.Encode()); err != nil {
		_ = os.Remove(keyPath)
		return fmt.Errorf("writing the token: %w", err)
	}
	return nil
}

// KeyPathFor is the default key file of a token file: beside it, with
// ".key" added. Testers are given the token file, never this one.
func KeyPathFor(tokenPath string) string { return tokenPath + ".key" }
