package timeserver

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrRefused is the error of a probe whose reply failed authentication:
// forged or altered on the path. The reply is not used.
var ErrRefused = errors.New("timeserver: reply refused: it failed authentication (forged or altered on the path)")

// DialAuth is DialVia whose requests are authenticated with key (nil:
// unauthenticated, as DialVia): the Client then takes only replies that
// carry key's MAC bound to the request they answer, and counts the others
// (Refused).
func DialAuth(network, addr string, via DialFunc, key *Key) (*Client, error) {
	return dialAuth(network, "", addr, via, key)
}

// clientAuth is what a Client needs to authenticate its requests and
// check the replies.
type clientAuth struct {
	keyID   uint32
	key     *keyState
	mac     *macer
	reqMAC  [MACSize]byte     // the MAC of the request in flight
	scratch [MessageSize]byte // for checking a reply
}

// newClientAuth readies key for authenticating requests (seal).
func newClientAuth(key *Key) *clientAuth {
	return &clientAuth{keyID: key.ID, key: newKeyState(key.Secret[:]), mac: newMacer()}
}

// seal turns req, a request with its t1 set, into one authenticated with
// the key: its kind and key id, a new nonce, and its MAC.
func (a *clientAuth) seal(req []byte) {
	req[5] = kindAuthRequest
	binary.BigEndian.PutUint32(req[keyIDAt:], a.keyID)
	_, _ = rand.Read(req[nonceAt : nonceAt+8]) // never fails (crypto/rand)
	a.mac.sealRequest(a.key, req)
	copy(a.reqMAC[:], req[macAt:])
}

// authentic reports whether reply p, a well-formed response to the
// request in flight, is authentic: carries the request's key's MAC bound
// to it, or, for an unauthenticated Client, is an unauthenticated reply.
// It counts the replies it refuses.
func (c *Client) authentic(p []byte) bool {
	var ok bool
	if a := c.auth; a == nil {
		ok = p[5] == kindResponse
	} else {
		ok = p[5] == kindAuthResponse && a.mac.responseAuthentic(a.key, p, a.reqMAC[:], a.scratch[:])
	}
	if !ok {
		c.refused++
	}
	return ok
}

// Authenticated reports whether the Client's requests and replies are
// authenticated (it was dialled with a key).
func (c *Client) Authenticated() bool { return c.auth != nil }

// Refused returns the number of replies refused so far: they answered the
// request in flight but failed authentication (forged or altered on the
// path), or were authenticated when the Client has no key.
func (c *Client) Refused() uint64 { return c.refused }

// noAnswer is the error of a burst of n probes that got no answer it
// could use: refused of its replies were refused, last is the last
// probe's error.
func (c *Client) noAnswer(n int, refused uint64, last error) error {
	switch {
	case refused > 0:
		return fmt.Errorf("timeserver: no authentic answer to %d probes of %s: %d refused: %w", n, c.raddr, refused, ErrRefused)
	case c.auth != nil:
		return fmt.Errorf("timeserver: no answer to %d authenticated probes of %s (a time server that does not hold the key, "+
			"e.g. a standalone diperf timeserver, answers none): %w", n, c.raddr, last)
	}
	return fmt.Errorf("timeserver: no answer to %d probes of %s: %w", n, c.raddr, last)
}
