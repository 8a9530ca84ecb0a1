package credential

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// tokenHeader is the first line of every token, with its format version.
const tokenHeader = "diperf-token 1"

// MaxFile bounds a token or key file: anything longer is not one.
const MaxFile = 4096

// maxRuns bounds the run names one token may list, maxRunName each name.
const (
	maxRuns    = 64
	maxRunName = 128
)

// AnyRun in Token.Runs admits a tester to any run of the key's controller.
const AnyRun = "*"

// Token is a tester's credential: the secret it proves it holds, the
// public key of the only controller it obeys, the names of the runs it is
// good for and when it stops being good.
type Token struct {
	Secret     []byte            // the testers' shared secret
	Controller ed25519.PublicKey // the controller's public key
	Runs       []string          // experiment names it admits, or AnyRun
	Expires    time.Time         // after this it is stale
}

// Encode is the token's text, as in a token file:
//
//	diperf-token 1
//	secret: BASE64
//	controller: ed25519:BASE64
//	runs: NAME[,NAME...] | *
//	expires: RFC3339
func (t Token) Encode() []byte { return t.EncodeFor("HOST:PORT") }

// EncodeFor is Encode with the address testers join at (the controller's
// advertised address) in the comment that says how to join.
func (t Token) EncodeFor(addr string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n", tokenHeader)
	fmt.Fprintf(&b, "# testers join with: diperf tester --join %s --token-file THIS_FILE\n", addr)
	fmt.Fprintf(&b, "secret: %s\n", base64.StdEncoding.EncodeToString(t.Secret))
	fmt.Fprintf(&b, "controller: ed25519:%s\n", base64.StdEncoding.EncodeToString(t.Controller))
	fmt.Fprintf(&b, "runs: %s\n", strings.Join(t.Runs, ","))
	fmt.Fprintf(&b, "expires: %s\n", t.Expires.UTC().Format(time.RFC3339))
	return b.Bytes()
}

// Fingerprint names the controller's key in messages: the first 8 bytes
// of its SHA-256, in hex.
func (t Token) Fingerprint() string { return Fingerprint(t.Controller) }

// Fingerprint is the short name of a controller's public key.
func Fingerprint(pub ed25519.PublicKey) string {
	h := sha256.Sum256(pub)
	return hex.EncodeToString(h[:8])
}

// Admits reports whether the token is good for run at now: an error that
// says why not (stale, or made for other runs).
func (t Token) Admits(run string, now time.Time) error {
	if err := t.Fresh(now); err != nil {
		return err
	}
	if !slices.Contains(t.Runs, AnyRun) && !slices.Contains(t.Runs, run) {
		return fmt.Errorf("%w: it is good for runs %s, not for %q", ErrOtherRun, strings.Join(t.Runs, ","), run)
	}
	return nil
}

// Fresh reports whether the token is still good at now: an ErrStale that
// says when it expired, or nil.
func (t Token) Fresh(now time.Time) error {
	if !now.Before(t.Expires) {
		return fmt.Errorf("%w: it expired at %s (%s ago)", ErrStale, t.Expires.UTC().Format(time.RFC3339),
			now.Sub(t.Expires).Round(time.Second))
	}
	return nil
}

// Errors of Admits, for errors.Is.
var (
	ErrStale    = errors.New("stale token")
	ErrOtherRun = errors.New("token for other runs")
)

// ErrOldToken is a token file of the format before the controller had a
// key of its own: a bare secret.
var ErrOldToken = errors.New("not a diperf token (a bare secret, from before diperf 0.9?)")
