package directory

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// ErrForbidden is a request the directory refuses (403) for who sent it:
// a signature that does not verify, is out of its time window or was
// taken already, or a name bound to another key.
var ErrForbidden = errors.New("forbidden")

// signerKey is the context key of a signed request's signature.
type signerKey struct{}

// signed is a request's signature that verified within the window.
type signed struct {
	key ed25519.PublicKey
	sig [ed25519.SignatureSize]byte
	at  int64 // Unix ns
}

// signatureOf is r's signature, nil when r is not signed.
func signatureOf(r *http.Request) *signed {
	v, _ := r.Context().Value(signerKey{}).(*signed)
	return v
}

// signerOf is the public key that signed r, nil when r is not signed.
func signerOf(r *http.Request) ed25519.PublicKey {
	if v := signatureOf(r); v != nil {
		return v.key
	}
	return nil
}

// verify checks the signature of a signed request (one with the
// signature header) before next sees it: a signature that does not
// verify, or signed more than SignatureWindow from the directory's clock,
// is 403. (One taken twice for a name is refused where it is taken:
// Server.ownedBy.) The request's Pattern is set as mux sets it, for the
// count of refusals around. Its body is read here (at most MaxBody bytes) and
// given to next again. An unsigned request goes on as it came.
func (s *Server) verify(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(HeaderSignature) == "" {
			mux.ServeHTTP(w, r)
			return
		}
		_, r.Pattern = mux.Handler(r)
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		if err == nil && len(body) > MaxBody {
			err = &http.MaxBytesError{Limit: MaxBody}
		}
		if err != nil {
			writeError(w, fmt.Errorf("reading the body: %w", err))
			return
		}
		sig, err := s.checkSignature(r, body)
		if err != nil {
			writeError(w, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), signerKey{}, sig)))
	})
}

// checkSignature returns r's signature (body: its body), or why it is
// refused.
func (s *Server) checkSignature(r *http.Request, body []byte) (*signed, error) {
	key, kerr := base64.StdEncoding.DecodeString(r.Header.Get(HeaderKey))
	sig, serr := base64.StdEncoding.DecodeString(r.Header.Get(HeaderSignature))
	at, terr := strconv.ParseInt(r.Header.Get(HeaderSignedAt), 10, 64)
	switch {
	case kerr != nil || len(key) != ed25519.PublicKeySize:
		return nil, fmt.Errorf("%w: %s: want a %d-byte Ed25519 public key in base64", ErrForbidden, HeaderKey, ed25519.PublicKeySize)
	case serr != nil || len(sig) != ed25519.SignatureSize:
		return nil, fmt.Errorf("%w: %s: want a %d-byte Ed25519 signature in base64", ErrForbidden, HeaderSignature, ed25519.SignatureSize)
	case terr != nil:
		return nil, fmt.Errorf("%w: %s: want Unix nanoseconds", ErrForbidden, HeaderSignedAt)
	}
	now := s.now()
	if d := now.Sub(time.Unix(0, at)).Abs(); d > SignatureWindow {
		return nil, fmt.Errorf("%w: signed at %s, %v from the directory's clock (%s); at most %v: are the clocks synchronized?",
			ErrForbidden, time.Unix(0, at).UTC().Format(time.RFC3339), d.Round(time.Second), now.UTC().Format(time.RFC3339), SignatureWindow)
	}
	if !ed25519.Verify(key, SignedMessage(r.Method, r.URL.RequestURI(), body, at), sig) {
		return nil, fmt.Errorf("%w: the signature does not verify with %s", ErrForbidden, HeaderKey)
	}
	return &signed{key: key, sig: [ed25519.SignatureSize]byte(sig), at: at}, nil
}
