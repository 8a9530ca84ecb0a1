// Package timeserver is DiPerF's time service: testers map their local
// clocks onto one global timeline, the server's wall clock, with NTP-style
// probes (see clock.Probe) over UDP, or over TCP where UDP is dropped.
//
// A request is RequestSize bytes and a response ResponseSize bytes, so the
// server never sends more than it received and cannot amplify an attack
// made with spoofed source addresses; a per-source rate limit bounds what it
// sends to any one address.
package timeserver

import (
	"encoding/binary"
	"errors"
)

// Wire sizes. A response is never larger than the request it answers.
const (
	// RequestSize is the size of a request; the server drops shorter ones.
	RequestSize = 48
	// ResponseSize is the size of a response.
	ResponseSize = 32
)

const (
	version      = 1
	kindRequest  = 1
	kindResponse = 2
	headerSize   = 8 // magic, version, kind, 2 zero bytes
)

var magic = [4]byte{'D', 'P', 'T', 'S'}

// ErrMalformed is returned by ParseResponse for anything but a well-formed
// response.
var ErrMalformed = errors.New("timeserver: malformed response")

// AppendRequest appends a request carrying t1, the client's send time, to
// dst and returns the extended slice.
func AppendRequest(dst []byte, t1 int64) []byte {
	dst = appendHeader(dst, kindRequest)
	dst = binary.BigEndian.AppendUint64(dst, uint64(t1))
	var pad [RequestSize - headerSize - 8]byte
	return append(dst, pad[:]...)
}

// ParseResponse parses a response: exactly ResponseSize bytes with the
// right magic, version and kind. It returns the echoed t1 and the server's
// receive (t2) and send (t3) times.
func ParseResponse(p []byte) (t1, t2, t3 int64, err error) {
	if len(p) != ResponseSize || !validHeader(p, kindResponse) {
		return 0, 0, 0, ErrMalformed
	}
	t1 = int64(binary.BigEndian.Uint64(p[8:]))
	t2 = int64(binary.BigEndian.Uint64(p[16:]))
	t3 = int64(binary.BigEndian.Uint64(p[24:]))
	return t1, t2, t3, nil
}

// parseRequest returns the t1 of a request: at least RequestSize bytes
// with the right magic, version and kind.
func parseRequest(p []byte) (t1 int64, ok bool) {
	if len(p) < RequestSize || !validHeader(p, kindRequest) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(p[8:])), true
}

// putResponse writes a response into p (ResponseSize bytes) with t3 zero;
// putT3 fills it in just before the send.
func putResponse(p []byte, t1, t2 int64) {
	_ = p[ResponseSize-1]
	copy(p, magic[:])
	p[4], p[5], p[6], p[7] = version, kindResponse, 0, 0
	binary.BigEndian.PutUint64(p[8:], uint64(t1))
	binary.BigEndian.PutUint64(p[16:], uint64(t2))
	binary.BigEndian.PutUint64(p[24:], 0)
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
