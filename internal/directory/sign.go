package directory

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// Headers of a signed request: the sensor's public key (base64, 32
// bytes), when it signed (Unix nanoseconds, decimal), and its Ed25519
// signature (base64, 64 bytes) of SignedMessage.
const (
	HeaderKey       = "Diperf-Sensor-Key"
	HeaderSignedAt  = "Diperf-Signed-At"
	HeaderSignature = "Diperf-Signature"
)

// SignatureWindow is how far a request's signing time may be from the
// directory's clock, either way: a signed request is good this long, and
// the directory remembers the signatures it took for as long, so that
// none is taken twice.
const SignatureWindow = 2 * time.Minute

// signContext is the first line of every signed message: a signature of
// the directory's API is good for nothing else.
const signContext = "diperf-directory-v1"

// SignedMessage is what a sensor signs of a request: the context line,
// the method, the request's path and query as sent (its RequestURI), the
// SHA-256 of its body in hex (of nothing when it has none), and the
// signing time in Unix nanoseconds, one a line.
func SignedMessage(method, requestURI string, body []byte, signedAt int64) []byte {
	h := sha256.Sum256(body)
	return []byte(signContext + "\n" + method + "\n" + requestURI + "\n" + hex.EncodeToString(h[:]) + "\n" +
		strconv.FormatInt(signedAt, 10))
}

// SignRequest signs req, whose body is body, with key at now: it sets
// the three headers.
func SignRequest(req *http.Request, body []byte, key ed25519.PrivateKey, now time.Time) {
	at := now.UnixNano()
	sig := ed25519.Sign(key, SignedMessage(req.Method, req.URL.RequestURI(), body, at))
	req.Header.Set(HeaderKey, base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey)))
	req.Header.Set(HeaderSignedAt, strconv.FormatInt(at, 10))
	req.Header.Set(HeaderSignature, base64.StdEncoding.EncodeToString(sig))
}

// SignWith makes the client sign every request that writes (all but GET)
// with key (the sensor's):
// the directory binds the name the client registers first to key, and
// then takes registrations, renewals, deregistrations, results and
// forecasts for that name only signed by it.
func (c *Client) SignWith(key ed25519.PrivateKey) { c.key = key }

// sign signs req (body: its body) when the client has a key and req
// writes: reads need only the token, and so do not depend on the clocks.
func (c *Client) sign(req *http.Request, body []byte) {
	if c.key != nil && req.Method != http.MethodGet {
		SignRequest(req, body, c.key, time.Now())
	}
}
