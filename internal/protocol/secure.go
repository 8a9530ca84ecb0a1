package protocol

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
)

// Layout of a secured frame's body: seq (8 bytes, big endian) || payload
// || MAC (MACSize bytes). The MAC is HMAC-SHA256 under the direction's
// session key over direction || seq || type || payload, truncated.
const (
	seqSize        = 8
	MACSize        = 16 // bytes of HMAC-SHA256 kept on each frame
	SecureOverhead = seqSize + MACSize
)

// Errors of a secured connection; either one ends it.
var (
	ErrBadMAC   = errors.New("protocol: bad MAC: forged or altered frame")
	ErrSequence = errors.New("protocol: frame out of sequence")
)

// secureState is one direction of a secured connection.
type secureState struct {
	mac hash.Hash
	dir byte
	seq uint64 // sequence number of the next frame
	sum []byte
}

func newSecureState(key []byte, dir byte) *secureState {
	return &secureState{mac: hmac.New(sha256.New, key), dir: dir}
}

// Secure switches the connection to authenticated frames under k: every
// frame written from now on carries the next sequence number of its
// direction (from 0) and a MAC; every frame read must carry the expected
// sequence number and a valid MAC. Frames may then be up to MaxFrame.
// Call it once, right after the handshake, before any other goroutine
// uses the connection.
func (c *Conn) Secure(k Keys) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wsec = newSecureState(k.Send, k.sendDir)
	c.rsec = newSecureState(k.Recv, k.recvDir)
	c.limit = MaxFrame + SecureOverhead
	c.keys = &k
}

// Keys returns the session keys the connection was secured with (false:
// not secured yet), from which a UDP session's keys are derived
// (NewUDPSender, UDPReceiver.Add). Call it from the goroutine that
// secured the connection, or after.
func (c *Conn) Keys() (Keys, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil {
		return Keys{}, false
	}
	return *c.keys, true
}

func (s *secureState) tag(seq uint64, t Type, payload []byte) []byte {
	s.mac.Reset()
	var hdr [1 + seqSize + 1]byte
	hdr[0] = s.dir
	binary.BigEndian.PutUint64(hdr[1:], seq)
	hdr[1+seqSize] = byte(t)
	s.mac.Write(hdr[:])
	s.mac.Write(payload)
	s.sum = s.mac.Sum(s.sum[:0])
	return s.sum[:MACSize]
}

// seal appends the secured body of a frame of type t to dst.
func (s *secureState) seal(dst []byte, t Type, payload []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, s.seq)
	dst = append(dst, payload...)
	dst = append(dst, s.tag(s.seq, t, payload)...)
	s.seq++
	return dst
}

// open checks a secured body and returns its payload: the MAC first, so
// that nothing of a forged frame is trusted, then the sequence number.
func (s *secureState) open(t Type, body []byte) ([]byte, error) {
	if len(body) < SecureOverhead {
		return nil, fmt.Errorf("%w: %s frame of %d bytes is too short to carry a MAC", ErrBadMAC, t, len(body))
	}
	seq := binary.BigEndian.Uint64(body[:seqSize])
	payload := body[seqSize : len(body)-MACSize]
	if !hmac.Equal(s.tag(seq, t, payload), body[len(body)-MACSize:]) {
		return nil, fmt.Errorf("%w (a %s frame)", ErrBadMAC, t)
	}
	if seq != s.seq {
		return nil, fmt.Errorf("%w: frame %d arrived where %d was expected: dropped, replayed or reordered", ErrSequence, seq, s.seq)
	}
	s.seq++
	return payload, nil
}
