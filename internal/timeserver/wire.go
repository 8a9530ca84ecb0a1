// Package timeserver is DiPerF's time service: testers map their local
// clocks onto one global timeline, the server's wall clock, with NTP-style
// probes (see clock.Probe) over UDP, or over TCP where UDP is dropped.
//
// A request and a response are both MessageSize bytes, so the server never
// sends more than it received and cannot amplify an attack made with
// spoofed source addresses; a per-source rate limit bounds what it sends to
// any one address.
//
// A request may be authenticated (see Key): it carries a key id and a MAC,
// and the response carries a MAC bound to the request, so that nobody on
// the path can shift the times it carries (docs/design/002-time.md).
package timeserver

import (
	"encoding/binary"
	"errors"
)

// Wire sizes (version 2). A response is never larger than the request it
// answers.
const (
	// MessageSize is the size of every request and response.
	MessageSize = 48
	// RequestSize is the size of a request; the server drops shorter ones.
	RequestSize = MessageSize
	// ResponseSize is the size of a response.
	ResponseSize = MessageSize
	// MACSize is the size of a MAC: HMAC-SHA256 truncated to 128 bits.
	MACSize = 16
)

// Version 2 of the wire format. Every message is
//
//	magic "DPTS" | version | kind | 0 | 0 | 40 bytes of the kind
//
// A request (kindRequest, kindAuthRequest) is
//
//	t1 (8) | key id (4) | 0 (4) | nonce (8) | MAC (16)
//
// and a response (kindResponse, kindAuthResponse) is
//
//	t1 (8) | t2 (8) | t3 (8) | MAC (16)
//
// all big endian. Unauthenticated messages carry zeros where the key id,
// nonce and MAC go. Version 1 (32-byte responses, no authentication) is
// no longer answered.
const (
	version          = 2
	kindRequest      = 1 // unauthenticated request
	kindResponse     = 2 // unauthenticated response
	kindAuthRequest  = 3 // request with a key id and a MAC
	kindAuthResponse = 4 // response with a MAC bound to its request
	headerSize       = 8 // magic, version, kind, 2 zero bytes
	macAt            = MessageSize - MACSize
	keyIDAt          = 16
	nonceAt          = 24
)

var magic = [4]byte{'D', 'P', 'T', 'S'}

// ErrMalformed is returned by ParseResponse for anything but a well-formed
// response.
var ErrMalformed = errors.New("timeserver: malformed response")

// AppendRequest appends an unauthenticated request carrying t1, the
// client's send time, to dst and returns the extended slice.
func AppendRequest(dst []byte, t1 int64) []byte {
	dst = appendHeader(dst, kindRequest)
	dst = binary.BigEndian.AppendUint64(dst, uint64(t1))
	var pad [MessageSize - headerSize - 8]byte
	return append(dst, pad[:]...)
}

// ParseResponse parses a response, authenticated or not (its MAC is not
// checked: see Key): exactly ResponseSize bytes with the right magic,
// version and kind, and an unauthenticated one with zeros for a MAC. It
// returns the echoed t1 and the server's receive (t2) and send (t3) times.
func ParseResponse(p []byte) (t1, t2, t3 int64, err error) {
	if len(p) != ResponseSize || !(validHeader(p, kindAuthResponse) ||
		validHeader(p, kindResponse) && [MACSize]byte(p[macAt:]) == [MACSize]byte{}) {
		return 0, 0, 0, ErrMalformed
	}
	t1 = int64(binary.BigEndian.Uint64(p[8:]))
	t2 = int64(binary.BigEndian.Uint64(p[16:]))
	t3 = int64(binary.BigEndian.Uint64(p[24:]))
	return t1, t2, t3, nil
}

// request is what the server reads of a request.
type request struct {
	t1    int64
	auth  bool   // kindAuthRequest: keyID and the MAC must check
	keyID uint32 // the key the MAC is made with
}

// parseRequest reads a request: at least RequestSize bytes with the right
// magic, version and a request kind; an authenticated one has its reserved
// bytes zero.
func parseRequest(p []byte) (r request, ok bool) {
	if len(p) < RequestSize {
		return r, false
	}
	r.t1 = int64(binary.BigEndian.Uint64(p[8:]))
	switch {
	case validHeader(p, kindRequest):
		return r, true
	case validHeader(p, kindAuthRequest) && binary.BigEndian.Uint32(p[keyIDAt+4:]) == 0:
		r.auth, r.keyID = true, binary.BigEndian.Uint32(p[keyIDAt:])
		return r, true
	}
	return r, false
}

// putResponse writes the response to request req into p (ResponseSize
// bytes) with t3 zero; putT3 fills it in just before the send. The
// response to an authenticated request holds the request's MAC where its
// own goes, for seal to bind it to.
func putResponse(p, req []byte, r request, t2 int64) {
	_ = p[ResponseSize-1]
	kind := byte(kindResponse)
	if r.auth {
		kind = kindAuthResponse
	}
	copy(p, magic[:])
	p[4], p[5], p[6], p[7] = version, kind, 0, 0
	binary.BigEndian.PutUint64(p[8:], uint64(r.t1))
	binary.BigEndian.PutUint64(p[16:], uint64(t2))
	binary.BigEndian.PutUint64(p[24:], 0)
	if r.auth {
		copy(p[macAt:], req[macAt:macAt+MACSize])
	} else {
		clear(p[macAt:ResponseSize])
	}
}

// putT3 sets the send time of a response written by putResponse.
func putT3(p []byte, t3 int64) { binary.BigEndian.PutUint64(p[24:], uint64(t3)) }

func appendHeader(dst []byte, kind byte) []byte {
	dst = append(dst, magic[:]...)
	return append(dst, version, kind, 0, 0)
}

func validHeader(p []byte, kind byte) bool {
	return len(p) >= headerSize && [4]byte(p[:4]) == magic &&
		p[4] == version && p[5] == kind && p[6] == 0 && p[7] == 0
}
