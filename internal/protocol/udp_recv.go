package protocol

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// DropReason is why the controller dropped a datagram.
type DropReason uint8

// Reasons a datagram is dropped, each counted. The first four are found
// before authentication, the others only for authentic datagrams, so
// that a forger cannot inflate a session's duplicate or stale counts.
const (
	_             DropReason = iota
	DropShort                // shorter than a header and a tag
	DropMalformed            // unknown version, or sequence number 0
	DropSession              // no such session (never granted, or removed)
	DropAuth                 // the tag does not verify: forged, altered, or another session's key
	DropClosed               // the session was finished: a straggler after the tester's Done
	DropDuplicate            // a sequence number already received
	DropStale                // older than the window: its number is already counted
	DropAhead                // more than MaxSeqJump past the highest
	dropEnd
)

var dropNames = [...]string{"", "short", "malformed", "unknown_session", "auth", "closed", "duplicate", "stale", "ahead"}

// String names the reason as the counts are reported.
func (r DropReason) String() string {
	if r > 0 && r < dropEnd {
		return dropNames[r]
	}
	return fmt.Sprintf("drop(%d)", uint8(r))
}

// Error makes a reason the error Open returns: errors.Is(err, DropAuth).
func (r DropReason) Error() string { return "udp: datagram dropped: " + r.String() }

// Datagram is an opened datagram: its session, sequence number, sample
// count and the encoded batch (valid as long as the datagram's buffer).
type Datagram struct {
	Session uint32
	Seq     uint64
	Count   uint16
	Batch   []byte
}

// DecodeBatch decodes the datagram's batch and checks that it holds as
// many samples as its header says.
func (d Datagram) DecodeBatch() (*Batch, error) {
	b, err := DecodeBatch(d.Batch)
	if err != nil {
		return nil, err
	}
	if len(b.Samples) != int(d.Count) {
		return nil, fmt.Errorf("udp: datagram %d of session %d says %d samples, holds %d", d.Seq, d.Session, d.Count, len(b.Samples))
	}
	return b, nil
}

// UDPReceiver opens the datagrams of every UDP session of a controller
// and keeps each session's loss accounting. Its methods are safe for
// concurrent use; one session's datagrams are accounted one at a time.
type UDPReceiver struct {
	mu       sync.RWMutex
	sessions map[uint32]*udpSession
	drops    [dropEnd]atomic.Uint64
}

type udpSession struct {
	mu    sync.Mutex
	aead  cipher.AEAD
	nonce []byte
	win   seqWindow
}

// NewUDPReceiver returns a receiver with no sessions.
func NewUDPReceiver() *UDPReceiver {
	return &UDPReceiver{sessions: make(map[uint32]*udpSession)}
}

// Add opens a session for the tester whose connection's keys, on the
// controller's side (SessionKeys with RoleController), are k.
func (r *UDPReceiver) Add(session uint32, k Keys) error {
	if session == 0 {
		return errors.New("udp: session id 0")
	}
	if k.recvDir != dirToController {
		return errors.New("udp: a receiver needs the controller's session keys")
	}
	a, err := udpAEAD(k.Recv, session)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.sessions[session]; ok {
		return fmt.Errorf("udp: session %d already open", session)
	}
	r.sessions[session] = &udpSession{aead: a, nonce: make([]byte, a.NonceSize())}
	return nil
}

// Remove forgets a session: its datagrams are then DropSession.
func (r *UDPReceiver) Remove(session uint32) {
	r.mu.Lock()
	delete(r.sessions, session)
	r.mu.Unlock()
}

func (r *UDPReceiver) session(id uint32) *udpSession {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sessions[id]
}

// Open authenticates and decrypts a datagram in place and accounts for
// it. A datagram that is dropped returns its DropReason as the error, and
// is counted (Drops, and the session's LossStats for the authentic ones).
// Nothing in a datagram can make Open panic or allocate.
func (r *UDPReceiver) Open(d []byte) (Datagram, error) {
	dg, reason := r.open(d)
	if reason != 0 {
		r.drops[reason].Add(1)
		return Datagram{}, reason
	}
	return dg, nil
}

func (r *UDPReceiver) open(d []byte) (Datagram, DropReason) {
	if len(d) < UDPOverhead {
		return Datagram{}, DropShort
	}
	h := udpHeader{session: binary.BigEndian.Uint32(d[1:]), seq: binary.BigEndian.Uint64(d[5:]), count: binary.BigEndian.Uint16(d[13:])}
	if d[0] != UDPVersion || h.seq == 0 {
		return Datagram{}, DropMalformed
	}
	s := r.session(h.session)
	if s == nil {
		return Datagram{}, DropSession
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.win.st.Finished {
		return Datagram{}, DropClosed
	}
	putNonce(s.nonce, h.seq)
	pt, err := s.aead.Open(d[UDPHeaderSize:UDPHeaderSize], s.nonce, d[UDPHeaderSize:], d[:UDPHeaderSize])
	if err != nil {
		return Datagram{}, DropAuth
	}
	if reason := s.win.add(h.seq, h.count); reason != 0 {
		return Datagram{}, reason
	}
	return Datagram{Session: h.session, Seq: h.seq, Count: h.count, Batch: pt}, 0
}

// Stats returns a session's counts so far.
func (r *UDPReceiver) Stats(session uint32) (LossStats, bool) {
	s := r.session(session)
	if s == nil {
		return LossStats{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.win.st, true
}

// Missing is how many of a session's datagrams up to last (the tester's
// UDPLastSeq) have not arrived and could still: the controller waits
// after the tester's Done until it is 0 or a grace period has passed,
// then calls Finish.
func (r *UDPReceiver) Missing(session uint32, last uint64) uint64 {
	s := r.session(session)
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.win.missing(last)
}

// Finish ends a session at last, the tester's UDPLastSeq: every number up
// to it that has not arrived is lost, and later datagrams are DropClosed.
// The counts are returned (Received + Lost == Last) even with an error,
// which says the tester's last is below what was received.
func (r *UDPReceiver) Finish(session uint32, last uint64) (LossStats, error) {
	s := r.session(session)
	if s == nil {
		return LossStats{}, fmt.Errorf("udp: no session %d", session)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.win.finish(last)
}

// Drops returns the datagrams dropped so far, by reason (every reason
// listed, 0 included), over every session.
func (r *UDPReceiver) Drops() map[string]uint64 {
	m := make(map[string]uint64, dropEnd-1)
	for i := DropReason(1); i < dropEnd; i++ {
		m[i.String()] = r.drops[i].Load()
	}
	return m
}
