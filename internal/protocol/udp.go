package protocol

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/diperf/diperf/internal/sample"
)

// UDP sample transport (docs/design/014-udp-samples.md). After the TCP
// handshake the controller grants a tester a UDP session (UDPDesc, in the
// test description); the tester then sends its sample batches as
// datagrams:
//
//	version (1) | session (4) | seq (8) | count (2) | AES-128-GCM(batch) | tag (16)
//
// all integers big endian; the 15-byte header is the additional data, the
// nonce is "dUDP" followed by seq (8 bytes), and seq counts the datagrams of
// one session from 1: under one key a nonce is never used twice. The key is
// derived from the connection's tester→controller session key and the
// session id, so it is new for every connection and every grant.
const (
	UDPVersion    = 1  // the datagram format's version, its first byte
	UDPHeaderSize = 15 // version, session, seq, count
	UDPTagSize    = 16 // AES-GCM tag
	// UDPOverhead is what the datagram format adds to an encoded batch.
	UDPOverhead = UDPHeaderSize + UDPTagSize
	// DefaultDatagram is the datagram size a controller grants on a real
	// network: under the 1,452 bytes of UDP payload an Ethernet MTU of
	// 1,500 leaves over IPv6, with room for a tunnel's headers, so that a
	// datagram is never fragmented (one lost fragment loses it all).
	DefaultDatagram = 1400
	// MaxDatagram is the largest datagram size a grant may name (the
	// largest UDP payload over IPv4); only loopback should get more than
	// DefaultDatagram.
	MaxDatagram = 65507
	// MinDatagram is the smallest: one sample of the largest encoding
	// (error text and extras in full) must fit.
	MinDatagram = UDPOverhead + udpBatchHeaderBound + sampleFixedBound + MaxErrText + 1 + sample.MaxExtras*extraBound
	// udpBatchHeaderBound: batch version, produced (a uvarint), count (a
	// uvarint of at most MaxBatch, two bytes).
	udpBatchHeaderBound = 1 + binary.MaxVarintLen64 + 2
	labelUDP            = "diperf-udp-v1 tester->controller samples"
	udpKeySize          = 16 // AES-128
)

// UDPDesc is the controller's grant of a UDP session to a tester, part of
// the test description sent on the authenticated TCP connection.
type UDPDesc struct {
	Addr     string `json:"addr"`     // the controller's UDP address, host:port
	Session  uint32 `json:"session"`  // the session id, never 0, unique among the run's live sessions
	Datagram int    `json:"datagram"` // the largest datagram the tester may send, bytes
}

// Validate checks a grant received from the wire.
func (u *UDPDesc) Validate() error {
	switch {
	case u.Addr == "":
		return errors.New("udp: no controller address")
	case u.Session == 0:
		return errors.New("udp: session id 0")
	case u.Datagram < MinDatagram || u.Datagram > MaxDatagram:
		return fmt.Errorf("udp: datagram size %d out of %d..%d", u.Datagram, MinDatagram, MaxDatagram)
	}
	return nil
}

// udpAEAD is the AEAD of a session's datagrams: AES-128-GCM under a key
// derived from the connection's tester→controller key (either side's Keys
// hold it: the tester's Send, the controller's Recv). The TCP frames' MAC
// uses that key as an HMAC key over inputs starting with the direction
// byte 'C'; HKDF-Expand's input here starts with the label's 'd': the two
// uses never MAC the same message.
func udpAEAD(base []byte, session uint32) (cipher.AEAD, error) {
	info := binary.BigEndian.AppendUint32([]byte(labelUDP), session)
	key, err := hkdf.Expand(sha256.New, base, string(info), udpKeySize)
	if err != nil {
		return nil, fmt.Errorf("udp: key derivation: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("udp: %w", err)
	}
	return cipher.NewGCM(block)
}

// udpHeader is a datagram's header.
type udpHeader struct {
	session uint32
	seq     uint64
	count   uint16
}

func (h udpHeader) put(b []byte) {
	b[0] = UDPVersion
	binary.BigEndian.PutUint32(b[1:], h.session)
	binary.BigEndian.PutUint64(b[5:], h.seq)
	binary.BigEndian.PutUint16(b[13:], h.count)
}

// putNonce writes the nonce of seq into n (12 bytes).
func putNonce(n []byte, seq uint64) {
	copy(n, "dUDP")
	binary.BigEndian.PutUint64(n[4:], seq)
}

// UDPSender seals one tester's sample batches into datagrams. It is not
// safe for concurrent use. Make exactly one per grant: two senders under
// one grant would seal different batches under the same nonces.
type UDPSender struct {
	aead    cipher.AEAD
	session uint32
	size    int
	seq     uint64 // the last sequence number sealed
	nonce   []byte
	buf     []byte // room for a datagram and a sample past it: no allocation when one does not fit
}

// NewUDPSender returns the sender of a grant, for the tester whose
// session keys are k (SessionKeys with RoleTester).
func NewUDPSender(k Keys, g UDPDesc) (*UDPSender, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if k.sendDir != dirToController {
		return nil, errors.New("udp: a sender needs the tester's session keys")
	}
	a, err := udpAEAD(k.Send, g.Session)
	if err != nil {
		return nil, err
	}
	return &UDPSender{aead: a, session: g.Session, size: g.Datagram,
		nonce: make([]byte, a.NonceSize()), buf: make([]byte, 0, g.Datagram+MinDatagram)}, nil
}

// LastSeq is the sequence number of the last datagram sealed (0: none):
// what the tester's Done reports as UDPLastSeq.
func (s *UDPSender) LastSeq() uint64 { return s.seq }

// SealBatch seals the next datagram: a batch of as many of the first
// samples as fit the grant's datagram size (at least one), with produced,
// the samples produced so far. It returns the datagram, valid until the
// next call, and how many samples it carries; the caller sends the rest in
// the next ones. A datagram that cannot be sent is still counted: its
// sequence number is a gap the controller counts as lost.
func (s *UDPSender) SealBatch(produced uint64, samples []sample.Sample) ([]byte, int, error) {
	b, n := AppendBatchFit(s.buf[:UDPHeaderSize], produced, samples, s.size-UDPOverhead)
	if n == 0 && len(samples) > 0 {
		return nil, 0, fmt.Errorf("udp: sample %d does not fit a datagram of %d bytes", samples[0].Seq, s.size)
	}
	d, err := s.seal(b, uint16(n))
	return d, n, err
}

// SealPayload seals the next datagram around an encoded batch of count
// samples (a load generator's pre-encoded batch); it must fit the grant.
func (s *UDPSender) SealPayload(count uint16, batch []byte) ([]byte, error) {
	if UDPOverhead+len(batch) > s.size {
		return nil, fmt.Errorf("udp: batch of %d bytes does not fit a datagram of %d", len(batch), s.size)
	}
	return s.seal(append(s.buf[:UDPHeaderSize], batch...), count)
}

// seal fills the header of b (header then plaintext) and encrypts it in
// place under the next sequence number.
func (s *UDPSender) seal(b []byte, count uint16) ([]byte, error) {
	if s.seq == math.MaxUint64 {
		return nil, errors.New("udp: sequence numbers exhausted")
	}
	s.seq++
	udpHeader{session: s.session, seq: s.seq, count: count}.put(b)
	putNonce(s.nonce, s.seq)
	ct := s.aead.Seal(b[UDPHeaderSize:UDPHeaderSize], s.nonce, b[UDPHeaderSize:], b[:UDPHeaderSize])
	s.buf = b[:UDPHeaderSize+len(ct)]
	return s.buf, nil
}

// AppendBatchFit encodes onto dst a batch (as AppendBatch) of the longest
// prefix of samples, at most MaxBatch, whose encoding takes at most limit
// bytes, and returns it with the number of samples taken: 0 when the
// first does not fit. Samples are encoded exactly, not bounded, so a
// datagram is filled.
func AppendBatchFit(dst []byte, produced uint64, samples []sample.Sample, limit int) ([]byte, int) {
	start := len(dst)
	gap := 1 + uvarintLen(produced) + 2 // count: at most two bytes
	dst = append(dst, make([]byte, gap)...)
	var prev int64
	n := 0
	for n < len(samples) && n < MaxBatch {
		next := appendSample(dst, &samples[n], prev)
		if len(next)-start > limit {
			break
		}
		dst, prev = next, samples[n].Start
		n++
	}
	dst[start] = BatchVersion
	h := 1 + binary.PutUvarint(dst[start+1:], produced)
	h += binary.PutUvarint(dst[start+h:], uint64(n)) // ends at or before the samples
	copy(dst[start+h:], dst[start+gap:])
	return dst[:len(dst)-(gap-h)], n
}

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}
