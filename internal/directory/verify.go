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
	"sync"
	"time"
)

// ErrForbidden is a request the directory refuses (403) for who sent it:
// a signature that does not verify, is out of its time window or was
// taken already, or a name bound to another key.
var ErrForbidden = errors.New("forbidden")

// signerKey is the context key of a signed request's public key.
type signerKey struct{}

// signerOf is the public key that signed r, nil when r is not signed.
func signerOf(r *http.Request) ed25519.PublicKey {
	k, _ := r.Context().Value(signerKey{}).(ed25519.PublicKey)
	return k
}

// verify checks the signature of a signed request (one with the
// signature header) before next sees it: a signature that does not
// verify, signed more than SignatureWindow from the directory's clock, or
// seen before, is 403. Its body is read here (at most MaxBody bytes) and
// given to next again. An unsigned request goes on as it came.
func (s *Server) verify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(HeaderSignature) == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		if err == nil && len(body) > MaxBody {
			err = &http.MaxBytesError{Limit: MaxBody}
		}
		if err != nil {
			writeError(w, fmt.Errorf("reading the body: %w", err))
			return
		}
		key, err := s.checkSignature(r, body)
		if err != nil {
			writeError(w, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), signerKey{}, key)))
	})
}

// checkSignature returns the key that signed r (body: its body), or why
// the signature is refused.
func (s *Server) checkSignature(r *http.Request, body []byte) (ed25519.PublicKey, error) {
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
	if err := s.seen.add([ed25519.SignatureSize]byte(sig), at, now); err != nil {
		return nil, err
	}
	return key, nil
}

// maxSeen bounds the signatures the directory remembers: about 40 MB.
const maxSeen = 1 << 18

// seenSigs remembers the signatures taken within the window, so that a
// request recorded on the way (plain HTTP) cannot be sent again.
type seenSigs struct {
	mu      sync.Mutex
	at      map[[ed25519.SignatureSize]byte]int64 // signature → signed at (Unix ns)
	pruneAt int                                   // prune when the map grows past this
}

// add records sig, signed at at, and refuses one seen already. Past
// maxSeen signatures within the window, it refuses new ones (503).
func (p *seenSigs) add(sig [ed25519.SignatureSize]byte, at int64, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.at == nil {
		p.at, p.pruneAt = map[[ed25519.SignatureSize]byte]int64{}, 1024
	}
	if _, ok := p.at[sig]; ok {
		return fmt.Errorf("%w: this signature was taken already (a request sent again)", ErrForbidden)
	}
	if len(p.at) >= p.pruneAt {
		oldest := now.Add(-SignatureWindow).UnixNano()
		for k, t := range p.at {
			if t < oldest {
				delete(p.at, k)
			}
		}
		p.pruneAt = max(2*len(p.at), 1024)
	}
	if len(p.at) >= maxSeen {
		return errBusySigs
	}
	p.at[sig] = at
	return nil
}

// errBusySigs is a signed request past maxSeen within the window.
var errBusySigs = errors.New("too many signed requests in the last minutes; try again")
