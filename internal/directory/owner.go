package directory

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// keysSchema is the table of the names bound to a sensor's key: a name
// is bound at its first signed registration, and stays bound until an
// operator removes it (Store.Remove), its registration or not.
const keysSchema = `
CREATE TABLE IF NOT EXISTS sensor_keys (
	name TEXT PRIMARY KEY,
	public_key BLOB NOT NULL, -- Ed25519, 32 bytes
	bound_at INTEGER NOT NULL -- Unix ns
);
`

// KeyOf is the public key name is bound to, nil when it is bound to none.
func (s *Store) KeyOf(ctx context.Context, name string) (ed25519.PublicKey, error) {
	var k []byte
	err := s.db.QueryRowContext(ctx, `SELECT public_key FROM sensor_keys WHERE name = ?`, name).Scan(&k)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the key of %s: %w", name, err)
	}
	return k, nil
}

// Bind binds name to key unless it is bound already; it returns the key
// name is bound to now, and whether this call bound it.
func (s *Store) Bind(ctx context.Context, name string, key ed25519.PublicKey, now time.Time) (ed25519.PublicKey, bool, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO sensor_keys (name, public_key, bound_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO NOTHING`, name, []byte(key), now.UnixNano())
	if err != nil {
		return nil, false, fmt.Errorf("binding %s to its key: %w", name, err)
	}
	n, _ := res.RowsAffected()
	bound, err := s.KeyOf(ctx, name)
	return bound, n == 1, err
}

// unbind undoes a Bind of name to key whose registration then failed.
func (s *Store) unbind(ctx context.Context, name string, key ed25519.PublicKey) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM sensor_keys WHERE name = ? AND public_key = ?`, name, []byte(key))
	return err
}

// Deregister deletes name's registration (its results stay; so does its
// key: the name is still its owner's); ErrNotRegistered if there is none.
func (s *Store) Deregister(ctx context.Context, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM sensors WHERE name = ?`, name)
	if err != nil {
		return fmt.Errorf("deregistering %s: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotRegistered
	}
	return nil
}

// Remove deletes name's registration and frees the name from its key (an
// operator's act: a sensor that lost its key, a host retired); its
// results stay. It reports whether there was either.
func (s *Store) Remove(ctx context.Context, name string) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("removing %s: %w", name, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, nothing to undo
	var n int64
	for _, q := range []string{`DELETE FROM sensors WHERE name = ?`, `DELETE FROM sensor_keys WHERE name = ?`} {
		res, err := tx.ExecContext(ctx, q, name)
		if err != nil {
			return false, fmt.Errorf("removing %s: %w", name, err)
		}
		d, _ := res.RowsAffected()
		n += d
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("removing %s: %w", name, err)
	}
	return n > 0, nil
}

// authorize checks that r may act for name: when name is bound to a key,
// r must be signed by that key.
func (s *Server) authorize(r *http.Request, field, name string) error {
	key, err := s.store.KeyOf(r.Context(), name)
	if err != nil || key == nil {
		return err
	}
	return s.ownedBy(r, field, name, key)
}

// ownedBy checks that r is signed by key, the one name is bound to, and
// that its signature was not taken before (it is taken now).
func (s *Server) ownedBy(r *http.Request, field, name string, key ed25519.PublicKey) error {
	if err := owns(field, name, key, signerOf(r)); err != nil {
		return err
	}
	return s.seen.take(signatureOf(r), s.now())
}

// owns checks that signer is key, the one name is bound to.
func owns(field, name string, key, signer ed25519.PublicKey) error {
	switch {
	case signer == nil:
		return &OwnerError{Field: field, Msg: fmt.Sprintf("%s is bound to its sensor's key; this request is not signed", clip(name))}
	case !bytes.Equal(key, signer):
		return &OwnerError{Field: field, Msg: fmt.Sprintf("%s is bound to another sensor's key", clip(name))}
	}
	return nil
}

// claim checks that r may register name and, when r is signed and name
// is bound to no key yet, binds it to r's key; undo frees it again (the
// registration failed). An unsigned registration of a name bound to no
// key is let through, and binds nothing.
func (s *Server) claim(r *http.Request, name string) (undo func(), err error) {
	signer := signerOf(r)
	if signer == nil {
		return func() {}, s.authorize(r, "name", name)
	}
	key, made, err := s.store.Bind(r.Context(), name, signer, s.now())
	if err != nil {
		return nil, err
	}
	undo = func() {}
	if made {
		undo = func() { _ = s.store.unbind(context.WithoutCancel(r.Context()), name, signer) }
	}
	if err := s.ownedBy(r, "name", name, key); err != nil {
		undo()
		return nil, err
	}
	return undo, nil
}

// OwnerError is a request for a name bound to another key, or not
// signed by it (HTTP 403).
type OwnerError struct {
	Field, Msg string
}

func (e *OwnerError) Error() string { return e.Field + ": " + e.Msg }
